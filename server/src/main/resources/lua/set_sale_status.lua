-- Open or close the sale in one SKU slot (admin). Opening requires a warmed slot.
-- KEYS[1] sale meta hash   ARGV[1] OPEN | CLOSED
-- Returns {1, 'OK'} | {-4, 'NOT_WARMED'}
local metaKey, status = KEYS[1], ARGV[1]
if redis.call('EXISTS', metaKey) == 0 then
    return {-4, 'NOT_WARMED'}
end
redis.call('HSET', metaKey, 'status', status)
return {1, 'OK'}
