-- The first half of moving one unit between buckets of a hot SKU (docs/SCALE-OUT.md): the source
-- bucket gives one unit up and records it as in transit, in one script. The second half lands it in
-- the target bucket (reserve.lua for the buyer who asked, land_transfer.lua for the reconciler).
-- KEYS[1] stock  KEYS[2] counter hash  KEYS[3] sale meta hash  KEYS[4] transfers hash (in transit)
-- ARGV[1] transfer id  ARGV[2] target bucket  ARGV[3] the hold ms (reserve.lua's ARGV[11]): units returned to
-- this bucket while it was empty are not given to another for that long either (nor for the bucket's hold_ms)
-- Returns {1, 'TRANSFERRED', now_ms} | {2, 'ALREADY_TRANSFERRED', now_ms} | {-1, 'EMPTY', now_ms}
--         | {-3, 'NOT_OPEN', now_ms} (EMPTY also while the bucket's units are held)
--@include refill
local stockKey, counterKey, metaKey, transfersKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local transferId, target = ARGV[1], ARGV[2]

local nowMs = now_ms()

if redis.call('HEXISTS', transfersKey, transferId) == 1 then
    return {2, 'ALREADY_TRANSFERRED', nowMs}
end
if redis.call('HGET', metaKey, 'status') ~= 'OPEN' then
    return {-3, 'NOT_OPEN', nowMs}
end
if tonumber(redis.call('GET', stockKey) or '0') <= 0 or units_held(counterKey, nowMs, tonumber(ARGV[3] or '0')) then
    return {-1, 'EMPTY', nowMs}
end
redis.call('DECR', stockKey)
redis.call('HINCRBY', counterKey, 'initial', -1)
redis.call('HSET', transfersKey, transferId, target .. ':' .. nowMs)
return {1, 'TRANSFERRED', nowMs}
