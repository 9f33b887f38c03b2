-- Moves one entry of a work index (send_due or deadline ZSET) later on the Redis clock, when
-- handling it failed: the others behind it are reached first and the failing one is retried
-- after its backoff. Only an entry still present is moved (XX): a settled one stays settled.
-- KEYS[1] the ZSET   ARGV[1] member   ARGV[2] backoff ms
-- Returns {1, 'POSTPONED'} | {0, 'GONE'}
local indexKey, member, backoffMs = KEYS[1], ARGV[1], tonumber(ARGV[2])
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZADD', indexKey, 'XX', 'CH', nowMs + backoffMs, member) == 1 then
    return {1, 'POSTPONED'}
end
if redis.call('ZSCORE', indexKey, member) then
    return {1, 'POSTPONED'}
end
return {0, 'GONE'}
