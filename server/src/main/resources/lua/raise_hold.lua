-- Raises a bucket's hold of returned units (lib/refill.lua's units_held) to at least what this instance's memo
-- trusts itself for, before the instance first reads the bucket to remember its SKU sold out
-- (reservation.SoldOutMemo). The hold only ever grows within a sale: the longest any instance asked for.
-- KEYS[1] the bucket's counter hash
-- ARGV[1] the hold ms
-- Returns {the bucket's hold ms after}
local counterKey, hold = KEYS[1], tonumber(ARGV[1])
local current = tonumber(redis.call('HGET', counterKey, 'hold_ms') or '0') or 0
if hold > current then
    redis.call('HSET', counterKey, 'hold_ms', hold)
    return {hold}
end
return {current}
