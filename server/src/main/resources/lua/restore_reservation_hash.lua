-- Rebuild a lost reservation hash from PostgreSQL (DESIGN.md §11.5 "rebuild the projection, do not
-- touch stock"): only the hash and the buyer's one-attempt mark are written; the counters are
-- left alone, because whether the lost hash had already been counted is unknowable here - the
-- activity-level check (and, if needed, recalibration) settles the counters.
-- KEYS[1] reservation hash  KEYS[2] user mark
-- ARGV[1] reservation_id ARGV[2] order_id ('' if none) ARGV[3] status ARGV[4] user_id
-- ARGV[5] activity_id    ARGV[6] sku_id    ARGV[7] request_id  ARGV[8] message_id  ARGV[9] ttl_ms
-- Returns {1, 'RESTORED'} | {2, 'PRESENT'}
local reservationKey, userKey = KEYS[1], KEYS[2]
if redis.call('EXISTS', reservationKey) == 1 then
    return {2, 'PRESENT'}
end
redis.call('HSET', reservationKey, 'reservation_id', ARGV[1], 'status', ARGV[3], 'user_id', ARGV[4],
    'activity_id', ARGV[5], 'sku_id', ARGV[6], 'request_id', ARGV[7], 'message_id', ARGV[8],
    'mq_state', 'PUBLISHED', 'restored', '1')
if ARGV[2] ~= '' then
    redis.call('HSET', reservationKey, 'order_id', ARGV[2])
end
redis.call('PEXPIRE', reservationKey, tonumber(ARGV[9]))
redis.call('SET', userKey, ARGV[1], 'NX', 'PX', tonumber(ARGV[9]))
return {1, 'RESTORED'}
