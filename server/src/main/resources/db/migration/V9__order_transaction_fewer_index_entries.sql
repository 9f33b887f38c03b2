-- What the order transaction writes per order, cut again (docs/BENCHMARKS.md, "Where the order transaction's
-- time goes"): two index entries fewer per order, every guarantee kept by the same keys.
--
-- Run outside a transaction so the new index is built CONCURRENTLY: buyers' orders keep committing while it
-- builds on a large table (V9__order_transaction_fewer_index_entries.sql.conf).

-- 1. The request identity's unique key (SPEC 1a: a request_id is scoped to activity, SKU and user) now leads with
--    request_id: the same uniqueness, and it serves the runbook's lookup by request id, so the index kept only
--    for that lookup goes - one entry less for every reservation row written.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS uq_inventory_reservation_request_id
    ON inventory_reservation (request_id, activity_id, sku_id, user_id);
ALTER TABLE inventory_reservation
    ADD CONSTRAINT uq_inventory_reservation_request_id UNIQUE USING INDEX uq_inventory_reservation_request_id;
ALTER TABLE inventory_reservation DROP CONSTRAINT IF EXISTS uq_inventory_reservation_request;
DROP INDEX CONCURRENTLY IF EXISTS idx_inventory_reservation_request;

-- 2. A ledger row's identity is its idempotency key (OCCUPY:<reservation>, SELL:<order>, ...): it becomes the
--    primary key, and the surrogate key's index - read by nothing - goes. ledger_id stays as the insertion order.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS inventory_ledger_idempotency_key ON inventory_ledger (idempotency_key);
ALTER TABLE inventory_ledger DROP CONSTRAINT IF EXISTS inventory_ledger_pkey;
ALTER TABLE inventory_ledger
    ADD CONSTRAINT inventory_ledger_pkey PRIMARY KEY USING INDEX inventory_ledger_idempotency_key;
ALTER TABLE inventory_ledger DROP CONSTRAINT IF EXISTS uq_inventory_ledger_idempotency;
