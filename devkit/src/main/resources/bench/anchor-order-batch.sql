\set base random(1, 2000000000)
\set sku random(1, :nsku)
BEGIN;
INSERT INTO inbox (message_id) SELECT 'msg-' || :client_id || '-' || (:base + g) FROM generate_series(1, :batch) g ON CONFLICT DO NOTHING;
INSERT INTO orders (order_no, activity_id, sku_id, user_id, qty, status) SELECT 'o' || (:base + g), 1, :sku, :base + g, 1, 0 FROM generate_series(1, :batch) g ON CONFLICT (activity_id, sku_id, user_id) DO NOTHING;
INSERT INTO outbox (aggregate_id, event_type, payload) SELECT :base + g, 'ORDER_CREATED', '{"activityId":1,"qty":1}' FROM generate_series(1, :batch) g;
UPDATE inventory SET available_stock = available_stock - :batch, sold = sold + :batch, updated_at = now() WHERE activity_id = 1 AND sku_id = :sku AND available_stock >= :batch;
END;
