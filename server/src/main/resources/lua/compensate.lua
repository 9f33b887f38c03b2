-- Conditional compensation (DESIGN.md §9.6): give one reserved unit back to Redis, at most once.
-- KEYS[1] reservation hash  KEYS[2] stock (available)  KEYS[3] compensation marker  KEYS[4] counter hash
-- ARGV[1] reservation_id    ARGV[2] compensation_id   ARGV[3] now_ms           ARGV[4] terminal_ttl_ms
-- Returns  1 COMPENSATED | 2 ALREADY_COMPENSATED | -1 RESERVATION_MISSING | -2 RESERVATION_ID_MISMATCH
--         -3 ORDER_ALREADY_EXISTS | -4 INVALID_STATUS:<status> | -5 COMPENSATION_ID_CONFLICT
--@include reservation
--@include refill

return move_once({
    reservation_key = KEYS[1], reservation_id = ARGV[1], marker_key = KEYS[3], id = ARGV[2],
    ttl_ms = tonumber(ARGV[4]), done_status = 'COMPENSATED', moved_word = 'COMPENSATED',
    done_word = 'ALREADY_COMPENSATED', conflict_word = 'COMPENSATION_ID_CONFLICT',
    apply = function(status)
        if status == 'ORDER_CREATED' or status == 'PAID' or status == 'CANCEL_PENDING' then
            return {-3, 'ORDER_ALREADY_EXISTS'}
        end
        if status ~= 'RESERVED' and status ~= 'ORDER_REJECTED' and status ~= 'COMPENSATING' then
            return {-4, 'INVALID_STATUS:' .. tostring(status)}
        end
        local stockKey, counterKey = KEYS[2], KEYS[4]
        add_units(stockKey, counterKey, 1, now_ms(), true)
        local openCount = tonumber(redis.call('HGET', counterKey, 'open_reserved') or '0')
        if openCount > 0 then
            redis.call('HINCRBY', counterKey, 'open_reserved', -1)
        end
        redis.call('HSET', KEYS[1], 'status', 'COMPENSATED', 'compensation_id', ARGV[2], 'compensated_at_ms', ARGV[3])
        return nil
    end,
})
