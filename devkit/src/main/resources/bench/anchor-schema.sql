-- The least an order can cost in PostgreSQL on one hot SKU: an inbox row, an order row with the
-- one-per-user unique, an outbox row and the conditional stock UPDATE, set-based, with no
-- reservation or ledger rows. `seckill bench` runs it with pgbench beside the consumer's batch SQL.
DROP TABLE IF EXISTS inbox, inventory, orders, outbox;
CREATE TABLE inventory (activity_id bigint NOT NULL, sku_id bigint NOT NULL, available_stock int NOT NULL,
    sold int NOT NULL DEFAULT 0, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (activity_id, sku_id));
CREATE TABLE inbox (message_id text PRIMARY KEY, consumed_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE orders (id bigserial PRIMARY KEY, order_no text NOT NULL, activity_id bigint NOT NULL, sku_id bigint NOT NULL,
    user_id bigint NOT NULL, qty int NOT NULL, status smallint NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (activity_id, sku_id, user_id));
CREATE TABLE outbox (id bigserial PRIMARY KEY, aggregate_id bigint NOT NULL, event_type text NOT NULL, payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz);
INSERT INTO inventory (activity_id, sku_id, available_stock) SELECT 1, g, 1000000000 FROM generate_series(1, 16) g;
