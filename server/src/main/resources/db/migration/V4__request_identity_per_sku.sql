-- SPEC 1a "Request identity": a request_id is scoped to (activity, SKU, user), as it already is in
-- Redis (the request map lives in the SKU's slot) and in the derived reservation id. The old global
-- UNIQUE (user_id, request_id) made the same id on a second SKU or sale fail on every redelivery and
-- every deadline tombstone, so that reservation could never reach a terminal state.
ALTER TABLE inventory_reservation DROP CONSTRAINT IF EXISTS inventory_reservation_user_id_request_id_key;
ALTER TABLE inventory_reservation
    ADD CONSTRAINT uq_inventory_reservation_request UNIQUE (activity_id, sku_id, user_id, request_id);
