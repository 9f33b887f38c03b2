-- Moves an entry that can never be handled (its recovery fields cannot be read) out of a work index
-- into the slot's set-aside ZSET, scored with the time it was set aside on the Redis clock. It stops
-- counting as pending work (the entry breaker's backlog) and stays visible for a person.
-- KEYS[1] the work index (send_due)   KEYS[2] the set-aside ZSET   ARGV[1] member
-- Returns {1, 'SET_ASIDE'} | {0, 'GONE'}
local indexKey, asideKey, member = KEYS[1], KEYS[2], ARGV[1]
if redis.call('ZREM', indexKey, member) == 0 then
    return {0, 'GONE'}
end
local t = redis.call('TIME')
redis.call('ZADD', asideKey, tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), member)
return {1, 'SET_ASIDE'}
