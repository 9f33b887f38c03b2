-- The broker accepted the order message (DESIGN.md §7.2): record it and drop the send_due entry.
-- KEYS[1] reservation hash  KEYS[2] send_due ZSET
-- ARGV[1] reservation_id    ARGV[2] lease owner token ('' for the immediate send after admission)
-- Returns {1, 'PUBLISHED'} | {2, 'ALREADY_PUBLISHED'} | {-1, 'RESERVATION_MISSING'} | {-7, 'LEASE_LOST'}
local reservationKey, sendDueKey = KEYS[1], KEYS[2]
local reservationId, owner = ARGV[1], ARGV[2]

if redis.call('EXISTS', reservationKey) == 0 then
    return {-1, 'RESERVATION_MISSING'}
end
local f = redis.call('HMGET', reservationKey, 'mq_state', 'lease_owner')
if owner ~= '' and f[2] ~= owner then
    -- a rescan that lost its lease must not settle the entry another scanner now holds
    return {-7, 'LEASE_LOST'}
end
local removed = redis.call('ZREM', sendDueKey, reservationId)
if f[1] == 'PUBLISHED' and removed == 0 then
    return {2, 'ALREADY_PUBLISHED'}
end
redis.call('HSET', reservationKey, 'mq_state', 'PUBLISHED', 'last_error', '')
redis.call('HDEL', reservationKey, 'lease_owner')
return {1, 'PUBLISHED'}
