-- The send backlog of one slot, for the entry breaker (DESIGN.md §11.3 point 1): how many entries wait in
-- send_due, and how old the oldest of a sample of the soonest due is, on this master's own clock - the clock
-- reserve.lua wrote reserved_at_ms with, so a JVM whose clock is off never sees a backlog that is not there.
-- KEYS[1] send_due ZSET
-- ARGV[1] how many of the soonest due entries to look at
-- Returns {pending, oldest_age_ms}; oldest_age_ms is -1 when no sampled entry has its reservation.
local sendDueKey = KEYS[1]
local sample = tonumber(ARGV[1])
local prefix = string.sub(sendDueKey, 1, #sendDueKey - #'send_due')

local pending = redis.call('ZCARD', sendDueKey)
if pending == 0 then
    return {0, -1}
end
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local oldest = nil
-- the lowest scores are the entries due soonest; their reservation times bound the oldest
for _, rid in ipairs(redis.call('ZRANGE', sendDueKey, 0, sample - 1)) do
    local at = tonumber(redis.call('HGET', prefix .. 'reservation:' .. rid, 'reserved_at_ms'))
    if at and (oldest == nil or at < oldest) then
        oldest = at
    end
end
if oldest == nil then
    return {pending, -1}
end
return {pending, math.max(0, nowMs - oldest)}
