-- Warm one SKU slot from PostgreSQL (admin): the stock key IS the available count, the counter
-- hash holds initial/open_reserved/committed. Refused while the sale is open in this slot.
-- KEYS[1] stock  KEYS[2] counter hash  KEYS[3] sale meta hash  KEYS[4] transfers hash (units in transit out)
-- ARGV[1] available  ARGV[2] committed  ARGV[3] start_ms  ARGV[4] end_ms
-- Returns {1, 'WARMED'} | {-3, 'SALE_OPEN'} | {-6, 'RESERVATIONS_OPEN'}
-- A warm over a bucket that had run dry holds its units as a return (refill.lua); a first warm does not
-- (no instance can have remembered a bucket that had no stock key).
--@include refill
local stockKey, counterKey, metaKey = KEYS[1], KEYS[2], KEYS[3]
local available, committed = tonumber(ARGV[1]), tonumber(ARGV[2])
local startMs, endMs = ARGV[3], ARGV[4]

if redis.call('HGET', metaKey, 'status') == 'OPEN' then
    return {-3, 'SALE_OPEN'}
end
if tonumber(redis.call('HGET', counterKey, 'open_reserved') or '0') ~= 0 then
    return {-6, 'RESERVATIONS_OPEN'}
end
local before = redis.call('GET', stockKey)
redis.call('SET', stockKey, available)
if before and available > tonumber(before) then
    note_added(counterKey, tonumber(before), available, now_ms(), true)
end
redis.call('DEL', KEYS[4])
redis.call('HSET', counterKey, 'initial', available + committed, 'open_reserved', 0, 'committed', committed)
redis.call('HSET', metaKey, 'status', 'WARMED', 'start_ms', startMs, 'end_ms', endMs)
return {1, 'WARMED'}
