-- The broker accepted a batch of order messages (DESIGN.md §7.2): record each reservation of this slot
-- as PUBLISHED and drop its send_due entry, in one call. The immediate send after admission holds no
-- lease, so no owner is checked (a rescan that claimed one meanwhile finds its own mark refused).
-- KEYS[1] send_due ZSET   KEYS[2..n+1] reservation hashes
-- ARGV[1..n] reservation ids, in the order of KEYS[2..]
-- Returns {published, already_published, missing}
local sendDueKey = KEYS[1]
local published, already, missing = 0, 0, 0
for i = 2, #KEYS do
    local reservationKey, reservationId = KEYS[i], ARGV[i - 1]
    if redis.call('EXISTS', reservationKey) == 0 then
        missing = missing + 1
    else
        local removed = redis.call('ZREM', sendDueKey, reservationId)
        if removed == 0 and redis.call('HGET', reservationKey, 'mq_state') == 'PUBLISHED' then
            already = already + 1
        else
            redis.call('HSET', reservationKey, 'mq_state', 'PUBLISHED', 'last_error', '')
            redis.call('HDEL', reservationKey, 'lease_owner')
            published = published + 1
        end
    end
end
return {published, already, missing}
