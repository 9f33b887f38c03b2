-- Reconciliation, repair and the operator's runbook (design 10.6, 11.5, 11.6, 13.5).

-- One periodic reconciler at a time, whichever instance holds the lease.
CREATE TABLE reconcile_lease (
    name        text PRIMARY KEY,
    owner       text,
    lease_until timestamptz
);
INSERT INTO reconcile_lease (name) VALUES ('reconciler');

-- One open anomaly per (type, object): finding the same thing again adds nothing.
CREATE UNIQUE INDEX uq_reconcile_anomaly_open ON reconcile_anomaly (anomaly_type, object_id) WHERE status = 'OPEN';

-- A repair remembers what it saw.
ALTER TABLE repair_task ADD COLUMN evidence jsonb;

-- Objects a person took out of automation (design 11.6 step 1): compensation retries, the
-- timeout canceller, Redis calibration and replay leave them alone until the hold is released.
CREATE TABLE manual_hold (
    object_type     varchar(32) NOT NULL,
    object_id       text        NOT NULL,
    previous_status varchar(32),
    reason          text        NOT NULL,
    operator        text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (object_type, object_id)
);

-- A stock change mid-sale: applied to PostgreSQL (with its ledger row) and then to Redis, each once.
CREATE TABLE stock_adjustment (
    adjustment_id    uuid        PRIMARY KEY,
    activity_id      bigint      NOT NULL,
    sku_id           bigint      NOT NULL,
    delta            integer     NOT NULL,
    reason           text        NOT NULL,
    operator         text        NOT NULL,
    redis_applied_at timestamptz,
    created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    CHECK (delta <> 0)
);

ALTER TABLE activity ADD COLUMN closed_out_at timestamptz;
