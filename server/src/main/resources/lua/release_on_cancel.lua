-- Release on cancel (DESIGN.md §7.6): a cancelled order's unit becomes sellable again in Redis,
-- once: committed - 1, stock + 1, reservation status CANCELLED, and a release marker. A hash still
-- RESERVED (ORDER_CREATED not projected yet) first takes the ORDER_CREATED moves. A paid order is
-- never released; a missing reservation is never a reason to add stock (reconciliation decides).
-- KEYS[1] reservation hash  KEYS[2] stock (available)  KEYS[3] counter hash  KEYS[4] release marker
-- ARGV[1] reservation_id    ARGV[2] order_id           ARGV[3] release_id    ARGV[4] terminal_ttl_ms
-- Returns  1 RELEASED | 2 ALREADY_RELEASED | -1 RESERVATION_MISSING | -2 RESERVATION_ID_MISMATCH
--         -3 ORDER_PAID | -4 INVALID_STATUS:<status> | -5 RELEASE_ID_CONFLICT
--@include reservation
--@include refill

return move_once({
    reservation_key = KEYS[1], reservation_id = ARGV[1], marker_key = KEYS[4], id = ARGV[3],
    ttl_ms = tonumber(ARGV[4]), done_status = 'CANCELLED', moved_word = 'RELEASED',
    done_word = 'ALREADY_RELEASED', conflict_word = 'RELEASE_ID_CONFLICT',
    apply = function(status)
        if status == 'PAID' then
            return {-3, 'ORDER_PAID'}
        end
        local stockKey, counterKey = KEYS[2], KEYS[3]
        local refused = settle_created(counterKey, status)
        if refused then
            return refused
        end
        redis.call('HINCRBY', counterKey, 'committed', -1)
        add_units(stockKey, counterKey, 1, now_ms(), true)
        redis.call('HSET', KEYS[1], 'status', 'CANCELLED', 'order_id', ARGV[2], 'release_id', ARGV[3])
        return nil
    end,
})
