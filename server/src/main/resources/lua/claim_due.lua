-- Send-due rescan (DESIGN.md §7.2, §10.2): claim due reservations of one slot with a lease. The
-- ZSET score becomes the lease expiry, the owner token goes on the reservation; nothing is
-- removed until the broker has accepted the message, so a crashed scanner loses nothing.
-- KEYS[1] send_due ZSET
-- ARGV[1] max entries  ARGV[2] lease ms  ARGV[3] owner token
-- Returns a flat list: {rid, status, message_id, request_id, user_id, activity_id, sku_id,
--                       reserved_at_ms, business_deadline_ms, send_attempts, expired_owner} per claimed
-- entry, expired_owner being the token of a scanner whose lease ran out before it settled the
-- entry ('' when the entry was not leased);
-- an entry whose reservation is gone is returned with status 'MISSING' (and dropped from the ZSET,
-- it cannot be re-sent without its recovery fields: reconciliation owns that case).
local sendDueKey = KEYS[1]
local limit, leaseMs, owner = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local prefix = string.sub(sendDueKey, 1, #sendDueKey - #'send_due')

local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', sendDueKey, '-inf', nowMs, 'LIMIT', 0, limit)
local out = {}
for _, rid in ipairs(due) do
    -- every reservation of this slot lives under the same hash-tagged prefix
    local key = prefix .. 'reservation:' .. rid
    local f = redis.call('HMGET', key, 'status', 'message_id', 'request_id', 'user_id', 'activity_id', 'sku_id',
        'reserved_at_ms', 'business_deadline_ms', 'send_attempts', 'lease_owner')
    if not f[1] then
        redis.call('ZREM', sendDueKey, rid)
        table.insert(out, rid)
        for _ = 1, 10 do table.insert(out, 'MISSING') end
    else
        redis.call('ZADD', sendDueKey, 'XX', nowMs + leaseMs, rid)
        redis.call('HSET', key, 'mq_state', 'PUBLISHING', 'lease_owner', owner)
        local attempts = redis.call('HINCRBY', key, 'send_attempts', 1)
        table.insert(out, rid)
        for i = 1, 8 do table.insert(out, f[i]) end
        table.insert(out, tostring(attempts))
        table.insert(out, f[10] or '')
    end
end
return out
