-- Admission of one purchase attempt (DESIGN.md §7.2, §8.2, §9.1): in one script, one hash slot.
-- KEYS[1] stock (the available count)        KEYS[2] counter hash (initial/open_reserved/committed)
-- KEYS[3] sale meta hash (status/start_ms/end_ms)
-- KEYS[4] request map  KEYS[5] user mark     KEYS[6] send_due ZSET
-- KEYS[7] deadline ZSET (score = business deadline; the sweeper's index of undecided reservations)
-- KEYS[8] reservation hash for the current id-key version
-- KEYS[9..] reservation hashes for the same request under every retained older key version
-- KEYS[last] with a transfer id only: the transfer's marker in this bucket
-- ARGV[1] reservation_id  ARGV[2] message_id  ARGV[3] request_id  ARGV[4] user_id
-- ARGV[5] activity_id     ARGV[6] sku_id      ARGV[7] key_version ARGV[8] send grace ms
-- ARGV[9] business deadline ms (relative)     ARGV[10] request map TTL ms
-- ARGV[11] the hold ms: units returned to this bucket while it was empty are not given out for that long
--          (refill.lua; '0' without a sold-out memo), or for the bucket's own hold_ms if that is longer
-- ARGV[12] optional: the id of a unit transferred here from another bucket for this buyer (transfer_out.lua);
--          it lands first, whatever the answer, so a unit taken out of its source is never lost
-- ARGV[13] with a transfer id: the marker's TTL ms
-- Returns {code, word, reservation_id, status, now_ms, landed}:
--   1 QUEUED | 2 DUPLICATE_REQUEST | -1 SOLD_OUT (status RETURNING: the bucket's units are held) | -2 ALREADY_RESERVED
--   | -3 NOT_OPEN | -4 NOT_WARMED
--   landed: -1 no transfer, else land_transfer's answer (1 now, 2 before, 0 not landable here)
--@include refill
--@include transfer
local stockKey, counterKey, metaKey = KEYS[1], KEYS[2], KEYS[3]
local requestKey, userKey, sendDueKey, deadlineKey, reservationKey = KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local reservationId, messageId, requestId, userId = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local activityId, skuId, keyVersion = ARGV[5], ARGV[6], ARGV[7]
local graceMs, deadlineMs, requestTtlMs = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local holdMs = tonumber(ARGV[11] or '0')
local transferId = ARGV[12] or ''

local nowMs = now_ms()

-- 0. a unit transferred here for this buyer lands before anything is judged
local landed = -1
local lastVersionKey = #KEYS
if transferId ~= '' then
    landed = land_transfer(stockKey, counterKey, metaKey, KEYS[#KEYS], transferId, tonumber(ARGV[13]), nowMs)
    lastVersionKey = #KEYS - 1
end
local function answer(code, word, rid, status)
    return {code, word, rid, status, nowMs, landed}
end

-- 1. the same request again: answer the reservation it already made
local mapped = redis.call('GET', requestKey)
if mapped then
    local mappedStatus = redis.call('HGET', KEYS[8], 'status')
    for i = 9, lastVersionKey do
        if mappedStatus then break end
        mappedStatus = redis.call('HGET', KEYS[i], 'status')
    end
    return answer(2, 'DUPLICATE_REQUEST', mapped, mappedStatus or 'UNKNOWN')
end
-- the request map may be gone while the reservation is not: check every derived id
for i = 8, lastVersionKey do
    local existing = redis.call('HMGET', KEYS[i], 'reservation_id', 'status')
    if existing[1] then
        redis.call('SET', requestKey, existing[1], 'PX', requestTtlMs)
        return answer(2, 'DUPLICATE_REQUEST', existing[1], existing[2])
    end
end

-- 2. the sale window, judged on the Redis clock
local meta = redis.call('HMGET', metaKey, 'status', 'start_ms', 'end_ms')
if not meta[1] then
    return answer(-4, 'NOT_WARMED', '', '')
end
if meta[1] ~= 'OPEN' or nowMs < tonumber(meta[2]) or nowMs >= tonumber(meta[3]) then
    return answer(-3, 'NOT_OPEN', '', meta[1])
end

-- 3. one attempt per user
local held = redis.call('GET', userKey)
if held then
    -- the held reservation lives in this slot under the same key prefix
    local heldKey = (string.gsub(reservationKey, '[^:]+$', held))
    local heldStatus = redis.call('HGET', heldKey, 'status')
    return answer(-2, 'ALREADY_RESERVED', held, heldStatus or 'UNKNOWN')
end

-- 4. stock
local stock = tonumber(redis.call('GET', stockKey) or '0')
if stock <= 0 then
    return answer(-1, 'SOLD_OUT', '', '')
end
if units_held(counterKey, nowMs, holdMs) then
    return answer(-1, 'SOLD_OUT', '', 'RETURNING')
end

-- 5. reserve: stock, counters, reservation with every recovery field, send_due, request map, user mark
redis.call('DECR', stockKey)
redis.call('HINCRBY', counterKey, 'open_reserved', 1)
-- every admission ever made in this slot, never moved back: how an instance that remembers the SKU sold out
-- learns that something was admitted since (reservation.SoldOutMemo)
redis.call('HINCRBY', counterKey, 'admitted', 1)
redis.call('HSET', reservationKey,
    'status', 'RESERVED',
    'mq_state', 'PENDING',
    'activity_id', activityId,
    'sku_id', skuId,
    'user_id', userId,
    'request_id', requestId,
    'reservation_id', reservationId,
    'message_id', messageId,
    'key_version', keyVersion,
    'schema_version', '1',
    'reserved_at_ms', tostring(nowMs),
    'business_deadline_ms', tostring(nowMs + deadlineMs),
    'send_attempts', '0',
    'last_error', '')
redis.call('ZADD', sendDueKey, nowMs + graceMs, reservationId)
redis.call('ZADD', deadlineKey, nowMs + deadlineMs, reservationId)
redis.call('SET', requestKey, reservationId, 'PX', requestTtlMs)
redis.call('SET', userKey, reservationId)
return answer(1, 'QUEUED', reservationId, 'RESERVED')
