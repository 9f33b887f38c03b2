-- Each instance's share of the live dashboard: its pipeline gauges and counter totals, written every
-- seckill.dashboard.fleet-interval, so any instance's dashboard shows the whole fleet whichever roles it runs.
-- UNLOGGED: no WAL for figures that are rewritten every few seconds and worth nothing after a crash or a failover
-- (the table comes back empty and the instances fill it again within one interval).
CREATE UNLOGGED TABLE instance_meters (
    instance_id TEXT PRIMARY KEY,
    roles       TEXT        NOT NULL,
    snapshot    JSONB       NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);
