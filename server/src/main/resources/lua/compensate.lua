-- Conditional compensation (DESIGN.md §9.6): give one reserved unit back to Redis, at most once.
-- KEYS[1] reservation hash  KEYS[2] stock (available)  KEYS[3] compensation marker  KEYS[4] counter hash
-- ARGV[1] reservation_id    ARGV[2] compensation_id   ARGV[3] now_ms           ARGV[4] terminal_ttl_ms
-- Returns  1 COMPENSATED | 2 ALREADY_COMPENSATED | -1 RESERVATION_MISSING | -2 RESERVATION_ID_MISMATCH
--         -3 ORDER_ALREADY_EXISTS | -4 INVALID_STATUS:<status> | -5 COMPENSATION_ID_CONFLICT
local reservationKey, stockKey, markerKey, counterKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local reservationId, compensationId, nowMs, ttlMs = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
--@include reservation

local status, reply = status_for_move(reservationKey, reservationId, markerKey, compensationId, 'COMPENSATED',
    'ALREADY_COMPENSATED', 'COMPENSATION_ID_CONFLICT')
if reply then
    return reply
end
if status == 'ORDER_CREATED' or status == 'PAID' or status == 'CANCEL_PENDING' then
    return {-3, 'ORDER_ALREADY_EXISTS'}
end
if status ~= 'RESERVED' and status ~= 'ORDER_REJECTED' and status ~= 'COMPENSATING' then
    return {-4, 'INVALID_STATUS:' .. tostring(status)}
end

redis.call('INCRBY', stockKey, 1)
local openCount = tonumber(redis.call('HGET', counterKey, 'open_reserved') or '0')
if openCount > 0 then
    redis.call('HINCRBY', counterKey, 'open_reserved', -1)
end
redis.call('HSET', reservationKey, 'status', 'COMPENSATED', 'compensation_id', compensationId,
    'compensated_at_ms', nowMs)
mark_moved(reservationKey, markerKey, compensationId, ttlMs)
return {1, 'COMPENSATED'}
