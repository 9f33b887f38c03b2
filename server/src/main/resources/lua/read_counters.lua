-- One slot's counters read atomically (a sum over separately read keys can straddle a reservation).
-- KEYS[1] stock  KEYS[2] counter hash  KEYS[3] transfers hash (units given up to another bucket, not landed)
-- Returns {stock or false, initial, open_reserved, committed, in_transit} (false/nil when missing)
local c = redis.call('HMGET', KEYS[2], 'initial', 'open_reserved', 'committed')
return {redis.call('GET', KEYS[1]), c[1], c[2], c[3], redis.call('HLEN', KEYS[3])}
