-- Seckill schema (design chapter sections 8.5 and 9.9). Every state column is guarded by a CHECK
-- that lists exactly the states of its state machine; every idempotency key is a UNIQUE constraint.

CREATE TABLE activity (
    activity_id               bigint      PRIMARY KEY,
    name                      text        NOT NULL,
    status                    varchar(16) NOT NULL DEFAULT 'DRAFT',
    starts_at                 timestamptz NOT NULL,
    ends_at                   timestamptz NOT NULL,
    business_deadline_seconds integer     NOT NULL,
    payment_timeout_seconds   integer     NOT NULL,
    version                   bigint      NOT NULL DEFAULT 0,
    created_at                timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at                timestamptz NOT NULL DEFAULT clock_timestamp(),
    CHECK (status IN ('DRAFT', 'WARMED', 'OPEN', 'CLOSED')),
    CHECK (ends_at > starts_at),
    CHECK (business_deadline_seconds > 0),
    CHECK (payment_timeout_seconds > 0)
);

CREATE TABLE sku_inventory (
    activity_id     bigint        NOT NULL REFERENCES activity (activity_id),
    sku_id          bigint        NOT NULL,
    price           numeric(12,2) NOT NULL,
    redis_buckets   integer       NOT NULL DEFAULT 1,
    initial_stock   integer       NOT NULL,
    available_stock integer       NOT NULL,
    occupied_stock  integer       NOT NULL DEFAULT 0,
    sold_stock      integer       NOT NULL DEFAULT 0,
    version         bigint        NOT NULL DEFAULT 0,
    created_at      timestamptz   NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz   NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (activity_id, sku_id),
    CHECK (price >= 0),
    CHECK (redis_buckets BETWEEN 1 AND 1024),
    CHECK (available_stock >= 0 AND occupied_stock >= 0 AND sold_stock >= 0),
    CHECK (initial_stock = available_stock + occupied_stock + sold_stock)
);

CREATE TABLE inventory_reservation (
    reservation_id    uuid        PRIMARY KEY,
    request_id        uuid        NOT NULL,
    activity_id       bigint      NOT NULL,
    sku_id            bigint      NOT NULL,
    user_id           bigint      NOT NULL,
    message_id        uuid        NOT NULL,
    order_id          uuid,
    status            varchar(32) NOT NULL,
    reason_code       varchar(64),
    version           bigint      NOT NULL DEFAULT 0,
    reserved_at       timestamptz NOT NULL,
    business_deadline timestamptz NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (message_id),
    UNIQUE (user_id, request_id),
    CHECK (status IN ('RESERVED', 'ORDER_CREATED', 'ORDER_REJECTED', 'COMPENSATING',
                      'COMPENSATED', 'CANCELLED', 'MANUAL_REVIEW'))
);

CREATE INDEX idx_inventory_reservation_reconcile
    ON inventory_reservation (status, updated_at, reservation_id);

CREATE TABLE orders (
    order_id       uuid          PRIMARY KEY,
    activity_id    bigint        NOT NULL,
    sku_id         bigint        NOT NULL,
    user_id        bigint        NOT NULL,
    request_id     uuid          NOT NULL,
    reservation_id uuid          NOT NULL,
    status         varchar(16)   NOT NULL,
    amount         numeric(12,2) NOT NULL,
    expires_at     timestamptz   NOT NULL,
    paid_at        timestamptz,
    cancelled_at   timestamptz,
    version        bigint        NOT NULL DEFAULT 0,
    created_at     timestamptz   NOT NULL DEFAULT clock_timestamp(),
    updated_at     timestamptz   NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT uq_orders_activity_sku_user UNIQUE (activity_id, sku_id, user_id),
    CONSTRAINT uq_orders_reservation_id UNIQUE (reservation_id),
    CHECK (status IN ('CREATED', 'PAYING', 'PAID', 'CANCEL_PENDING', 'CANCELLED')),
    CHECK (amount >= 0)
);

CREATE INDEX idx_orders_expiry ON orders (expires_at) WHERE status IN ('CREATED', 'PAYING');

CREATE TABLE consumer_inbox (
    consumer_group text        NOT NULL,
    message_id     uuid        NOT NULL,
    topic          text        NOT NULL,
    event_type     text        NOT NULL,
    reservation_id uuid,
    request_id     uuid,
    payload_hash   bytea       NOT NULL,
    result_code    text        NOT NULL,
    order_id       uuid,
    processed_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (consumer_group, message_id),
    CHECK (octet_length(payload_hash) = 32),
    CHECK (result_code IN ('PROCESSING', 'ORDER_CREATED', 'REJECTED_SOLD_OUT',
                           'REJECTED_DUPLICATE_USER', 'LATE_REJECTED'))
);

CREATE TABLE message_quarantine (
    quarantine_id   bigserial   PRIMARY KEY,
    consumer_group  text        NOT NULL,
    topic           text        NOT NULL,
    message_id      text        NOT NULL,
    broker_msg_id   text,
    reason          varchar(64) NOT NULL,
    payload         bytea       NOT NULL,
    payload_hash    bytea       NOT NULL,
    existing_hash   bytea,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX idx_message_quarantine_message ON message_quarantine (message_id);

CREATE TABLE inventory_ledger (
    ledger_id         bigserial   PRIMARY KEY,
    activity_id       bigint      NOT NULL,
    sku_id            bigint      NOT NULL,
    reservation_id    uuid,
    order_id          uuid,
    change_type       varchar(32) NOT NULL,
    delta_available   integer     NOT NULL,
    delta_occupied    integer     NOT NULL,
    delta_sold        integer     NOT NULL,
    idempotency_key   text        NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT uq_inventory_ledger_idempotency UNIQUE (idempotency_key),
    CHECK (change_type IN ('OCCUPY', 'SELL', 'RELEASE', 'ADJUST')),
    CHECK (delta_available + delta_occupied + delta_sold = 0 OR change_type = 'ADJUST')
);

CREATE INDEX idx_inventory_ledger_sku ON inventory_ledger (activity_id, sku_id, created_at);

CREATE TABLE event_outbox (
    event_id       uuid        PRIMARY KEY,
    aggregate_type varchar(32) NOT NULL,
    aggregate_id   uuid        NOT NULL,
    event_type     varchar(64) NOT NULL,
    schema_version integer     NOT NULL,
    message_key    text        NOT NULL,
    payload        jsonb       NOT NULL,
    status         varchar(16) NOT NULL DEFAULT 'PENDING',
    attempt_count  integer     NOT NULL DEFAULT 0,
    next_retry_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    lease_owner    text,
    lease_until    timestamptz,
    last_error     text,
    created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    sent_at        timestamptz,
    CHECK (status IN ('PENDING', 'SENDING', 'RETRY', 'SENT', 'MANUAL'))
);

CREATE INDEX idx_event_outbox_dispatch
    ON event_outbox (next_retry_at, created_at)
    WHERE status IN ('PENDING', 'RETRY', 'SENDING');
CREATE INDEX idx_event_outbox_purge ON event_outbox (sent_at) WHERE status = 'SENT';

CREATE TABLE compensation_task (
    task_id           uuid        PRIMARY KEY,
    reservation_id    uuid        NOT NULL,
    compensation_type varchar(32) NOT NULL,
    idempotency_key   text        NOT NULL,
    status            varchar(16) NOT NULL DEFAULT 'PENDING',
    attempt_count     integer     NOT NULL DEFAULT 0,
    next_retry_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    lease_owner       text,
    lease_until       timestamptz,
    last_result       varchar(64),
    last_error        text,
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (idempotency_key),
    CHECK (status IN ('PENDING', 'CLAIMED', 'RETRY', 'APPLIED', 'VERIFIED', 'MANUAL'))
);

CREATE INDEX idx_compensation_task_dispatch
    ON compensation_task (next_retry_at, created_at)
    WHERE status IN ('PENDING', 'RETRY', 'CLAIMED');

CREATE TABLE payment_record (
    payment_id              uuid          PRIMARY KEY,
    order_id                uuid          NOT NULL REFERENCES orders (order_id),
    provider                varchar(32)   NOT NULL,
    provider_transaction_id text          NOT NULL,
    amount                  numeric(12,2) NOT NULL,
    status                  varchar(16)   NOT NULL,
    paid_at                 timestamptz,
    refund_status           varchar(16),
    created_at              timestamptz   NOT NULL DEFAULT clock_timestamp(),
    updated_at              timestamptz   NOT NULL DEFAULT clock_timestamp(),
    CHECK (status IN ('SUCCESS', 'FAILED')),
    CHECK (refund_status IS NULL OR refund_status IN ('REFUNDING', 'REFUNDED'))
);

CREATE UNIQUE INDEX uq_payment_provider_transaction
    ON payment_record (provider, provider_transaction_id);
CREATE INDEX idx_payment_record_order ON payment_record (order_id);

CREATE TABLE repair_task (
    repair_id        text        PRIMARY KEY,
    object_type      varchar(32) NOT NULL,
    object_id        text        NOT NULL,
    rule_name        varchar(64) NOT NULL,
    expected_version bigint,
    target_state     varchar(32) NOT NULL,
    status           varchar(16) NOT NULL DEFAULT 'PENDING',
    operator         text        NOT NULL,
    reason           text        NOT NULL,
    result           text,
    created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    CHECK (status IN ('PENDING', 'RUNNING', 'DONE', 'FAILED'))
);

CREATE TABLE reconcile_anomaly (
    anomaly_id   bigserial   PRIMARY KEY,
    anomaly_type varchar(64) NOT NULL,
    object_type  varchar(32) NOT NULL,
    object_id    text        NOT NULL,
    activity_id  bigint,
    sku_id       bigint,
    evidence     jsonb       NOT NULL,
    status       varchar(16) NOT NULL DEFAULT 'OPEN',
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    resolved_at  timestamptz,
    CHECK (status IN ('OPEN', 'RESOLVED'))
);

CREATE INDEX idx_reconcile_anomaly_open ON reconcile_anomaly (anomaly_type, created_at) WHERE status = 'OPEN';

CREATE TABLE audit_log (
    audit_id    bigserial   PRIMARY KEY,
    operator    text        NOT NULL,
    action      varchar(64) NOT NULL,
    object_type varchar(32) NOT NULL,
    object_id   text        NOT NULL,
    before      jsonb,
    after       jsonb,
    evidence    jsonb,
    reason      text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
