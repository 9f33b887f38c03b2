-- Payment and timeout cancellation (design 7.6, 9.9).
-- An order in CANCEL_PENDING is worked by one canceller at a time: a lease with an owner token on
-- the database clock, a bounded backoff while the payment channel cannot say whether it was paid.
ALTER TABLE orders
    ADD COLUMN cancel_reason   varchar(32),
    ADD COLUMN cancel_attempts integer     NOT NULL DEFAULT 0,
    ADD COLUMN cancel_next_at  timestamptz,
    ADD COLUMN lease_owner     text,
    ADD COLUMN lease_until     timestamptz,
    ADD CONSTRAINT ck_orders_cancel_reason
        CHECK (cancel_reason IS NULL OR cancel_reason IN ('PAYMENT_TIMEOUT', 'BUYER_CANCELLED'));

CREATE INDEX idx_orders_cancel_pending ON orders (cancel_next_at) WHERE status = 'CANCEL_PENDING';

-- The payment a buyer started with the channel: one per order (its id is derived from the order id),
-- so a repeated "pay" returns the same channel payment.
CREATE TABLE payment_attempt (
    payment_id              uuid          PRIMARY KEY,
    order_id                uuid          NOT NULL UNIQUE REFERENCES orders (order_id),
    provider                varchar(32)   NOT NULL,
    amount                  numeric(12,2) NOT NULL,
    provider_transaction_id text,
    pay_url                 text,
    created_at              timestamptz   NOT NULL DEFAULT clock_timestamp(),
    updated_at              timestamptz   NOT NULL DEFAULT clock_timestamp()
);

-- Money taken for an order that was already cancelled goes back through the channel: a refund
-- worked under a lease like every other background step.
ALTER TABLE payment_record
    ADD COLUMN refund_id       uuid,
    ADD COLUMN refund_attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN refund_next_at  timestamptz,
    ADD COLUMN lease_owner     text,
    ADD COLUMN lease_until     timestamptz,
    ADD COLUMN refunded_at     timestamptz;

CREATE INDEX idx_payment_record_refunding ON payment_record (refund_next_at) WHERE refund_status = 'REFUNDING';
