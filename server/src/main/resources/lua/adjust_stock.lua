-- An operator's stock change for one SKU slot (runbook adjust-stock), applied once per adjustment
-- id: stock and initial move together, so Redis conservation holds.
-- KEYS[1] stock  KEYS[2] counter hash  KEYS[3] adjustment marker
-- ARGV[1] delta  ARGV[2] adjustment_id  ARGV[3] marker ttl ms
-- Returns {1, 'APPLIED'} | {2, 'ALREADY_APPLIED'}
--@include refill
local stockKey, counterKey, markerKey = KEYS[1], KEYS[2], KEYS[3]
if redis.call('GET', markerKey) == ARGV[2] then
    return {2, 'ALREADY_APPLIED'}
end
local delta = tonumber(ARGV[1])
if delta > 0 then
    add_units(stockKey, counterKey, delta, now_ms(), true)
else
    redis.call('INCRBY', stockKey, delta)
end
redis.call('HINCRBY', counterKey, 'initial', delta)
redis.call('SET', markerKey, ARGV[2], 'PX', tonumber(ARGV[3]))
return {1, 'APPLIED'}
