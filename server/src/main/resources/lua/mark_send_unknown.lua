-- A re-send failed or timed out (DESIGN.md §2.3 rule 2: unknown is not failure): record it and
-- reschedule with backoff, only while this scanner still holds the lease.
-- KEYS[1] reservation hash  KEYS[2] send_due ZSET
-- ARGV[1] reservation_id    ARGV[2] lease owner token  ARGV[3] backoff ms  ARGV[4] error text
-- Returns {1, 'RESCHEDULED'} | {-1, 'RESERVATION_MISSING'} | {-7, 'LEASE_LOST'}
local reservationKey, sendDueKey = KEYS[1], KEYS[2]
local reservationId, owner, backoffMs, err = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]

if redis.call('EXISTS', reservationKey) == 0 then
    return {-1, 'RESERVATION_MISSING'}
end
if redis.call('HGET', reservationKey, 'lease_owner') ~= owner then
    return {-7, 'LEASE_LOST'}
end
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', sendDueKey, 'XX', nowMs + backoffMs, reservationId)
redis.call('HSET', reservationKey, 'mq_state', 'UNKNOWN', 'last_error', err)
redis.call('HDEL', reservationKey, 'lease_owner')
return {1, 'RESCHEDULED'}
