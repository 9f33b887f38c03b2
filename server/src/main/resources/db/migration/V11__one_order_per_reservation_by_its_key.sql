-- One order per reservation, kept by the order's primary key instead of an index of its own (docs/BENCHMARKS.md,
-- "Where the order transaction's time goes"): one index entry fewer for every order written, the same guarantee.
--
-- An order's id is derived from its reservation's (DESIGN.md §9.1: ReservationIds.derived("ORDER", reservation_id),
-- a name-based UUID of version 3 over "ORDER|<reservation_id>"), so a retry can never invent a second one. The CHECK
-- below makes PostgreSQL hold every order row to that derivation; with it, two orders of one reservation would have
-- one id, and the primary key refuses the second exactly as the unique (reservation_id) did.
--
-- Run outside a transaction (V11__one_order_per_reservation_by_its_key.sql.conf): the check is added NOT VALID and
-- validated afterwards, so a deployed engine keeps taking orders while the existing rows are read.

-- ReservationIds.derived("ORDER", r): MD5 of the UTF-8 text, version nibble 3, RFC 9562 variant. One expression with
-- no FROM, so PostgreSQL inlines it into the check and the lookups (the digest is taken twice: under a microsecond).
CREATE OR REPLACE FUNCTION order_id_of(reservation_id uuid) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
SELECT overlay(overlay(md5('ORDER|' || reservation_id::text) PLACING '3' FROM 13)
               PLACING translate(substr(md5('ORDER|' || reservation_id::text), 17, 1),
                                 '0123456789abcdef', '89ab89ab89ab89ab') FROM 17)::uuid
$$;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'ck_orders_id_of_reservation') THEN
        ALTER TABLE orders ADD CONSTRAINT ck_orders_id_of_reservation
            CHECK (order_id = order_id_of(reservation_id)) NOT VALID;
    END IF;
END
$$;
ALTER TABLE orders VALIDATE CONSTRAINT ck_orders_id_of_reservation;

-- Lookups by reservation now go through order_id = order_id_of(reservation_id), the primary key.
ALTER TABLE orders DROP CONSTRAINT IF EXISTS uq_orders_reservation_id;
