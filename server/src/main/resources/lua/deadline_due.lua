-- Reservations of one slot whose business deadline has passed on the Redis clock (DESIGN.md §11.2).
-- Read-only: the sweeper decides in PostgreSQL, then removes what is decided.
-- KEYS[1] deadline ZSET   ARGV[1] max entries
-- Returns the due reservation ids (a plain list: no code word, unlike the other scripts).
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', nowMs, 'LIMIT', 0, tonumber(ARGV[1]))
