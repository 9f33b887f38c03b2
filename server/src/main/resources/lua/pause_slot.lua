-- Stops or restarts admission in one SKU slot around a recalibration (docs/RECONCILIATION.md).
-- KEYS[1] sale meta hash
-- ARGV[1] PAUSE | RESUME   ARGV[2] the status to resume to   ARGV[3] start_ms   ARGV[4] end_ms
-- PAUSE: an OPEN slot, or one whose meta is gone, becomes PAUSED (reserve.lua answers NOT_OPEN with
--        that status, transfers neither leave nor land); a slot that admits nobody already is left
--        as it is.
-- RESUME: a PAUSED slot takes the given status and window; any other is left alone (an operator who
--         opened or closed the sale meanwhile has the last word).
-- Returns {1, 'PAUSED' | 'RESUMED'} when it changed the slot, else {0, <status as found>}
local metaKey, mode = KEYS[1], ARGV[1]
local status = redis.call('HGET', metaKey, 'status')
if mode == 'PAUSE' then
    if status and status ~= 'OPEN' then
        return {0, status}
    end
    redis.call('HSET', metaKey, 'status', 'PAUSED', 'start_ms', ARGV[3], 'end_ms', ARGV[4])
    return {1, 'PAUSED'}
end
if status ~= 'PAUSED' then
    return {0, status or ''}
end
redis.call('HSET', metaKey, 'status', ARGV[2], 'start_ms', ARGV[3], 'end_ms', ARGV[4])
return {1, 'RESUMED'}
