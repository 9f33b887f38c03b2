-- Reconciliation and the runbook cost what the change costs, not what the sale has accumulated:
-- the reconciler walks each SKU's reservations and orders by (updated_at, id) inside a change window,
-- and every join and lookup it or the runbook makes has an index. docs/RECONCILIATION.md shows the plans.

-- reservations of a SKU in change order (replaces the (status, updated_at) index, which nothing reads)
DROP INDEX IF EXISTS idx_inventory_reservation_reconcile;
CREATE INDEX idx_inventory_reservation_sku_changed
    ON inventory_reservation (activity_id, sku_id, updated_at, reservation_id);
-- orders of a SKU in change order (a payment or a cancel changes the order, not the reservation)
CREATE INDEX idx_orders_sku_changed ON orders (activity_id, sku_id, updated_at, order_id);
-- joins: a reservation's compensation task, the events still on their way about an aggregate, holds
CREATE INDEX idx_compensation_task_reservation ON compensation_task (reservation_id);
CREATE INDEX idx_event_outbox_aggregate_pending ON event_outbox (aggregate_id)
    WHERE status IN ('PENDING', 'RETRY', 'SENDING');
CREATE INDEX idx_manual_hold_object ON manual_hold (object_id);
-- the runbook's "any business id" lookups
CREATE INDEX idx_inventory_reservation_request ON inventory_reservation (request_id);
CREATE INDEX idx_inventory_reservation_order ON inventory_reservation (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX idx_payment_record_provider_transaction ON payment_record (provider_transaction_id);
