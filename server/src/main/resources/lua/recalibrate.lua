-- Sets one SKU slot's counters to PostgreSQL's count (docs/RECONCILIATION.md, "Recalibration"), only
-- while nothing can move them under the caller: the slot admits nobody (its meta is not OPEN), no
-- reservation is open in it but those a person holds (MANUAL_REVIEW: nothing else moves them), and its
-- counters are still the ones the caller read before it read PostgreSQL - a release, compensation,
-- transfer or stock change that ran in between makes the caller start again from fresh reads.
-- The sale meta is left alone: resuming is the caller's next step.
-- KEYS[1] stock  KEYS[2] counter hash  KEYS[3] sale meta hash
-- ARGV[1] stock  ARGV[2] committed   (the new counts; initial = their sum plus ARGV[7])
-- ARGV[3] stock  ARGV[4] initial  ARGV[5] committed   as the caller read them ('' = missing)
-- ARGV[6] 'LOST' after a loss of this slot's keys: while the slot has no stock key or no initial, its
--         open_reserved counts nothing (moves of hashes that outlived the loss) and is not waited for
-- ARGV[7] reservations of the slot under manual review whose hash is open ('' = 0): the open count the slot
--         must have, and keeps - their units stay taken until the person gives them back (compensate.lua)
-- Returns {1, 'RECALIBRATED'} | {-1, 'ADMITTING'} | {-2, 'OPEN_RESERVED', n} | {-3, 'CHANGED'}
--@include refill
local stockKey, counterKey, metaKey = KEYS[1], KEYS[2], KEYS[3]
if redis.call('HGET', metaKey, 'status') == 'OPEN' then
    return {-1, 'ADMITTING'}
end
local c = redis.call('HMGET', counterKey, 'initial', 'open_reserved', 'committed')
local open = tonumber(c[2] or '0')
local inReview = tonumber(ARGV[7] ~= nil and ARGV[7] ~= '' and ARGV[7] or '0')
local lost = ARGV[6] == 'LOST' and (redis.call('EXISTS', stockKey) == 0 or not c[1])
if open ~= inReview and not lost then
    return {-2, 'OPEN_RESERVED', open}
end
if (redis.call('GET', stockKey) or '') ~= ARGV[3] or (c[1] or '') ~= ARGV[4] or (c[3] or '') ~= ARGV[5] then
    return {-3, 'CHANGED'}
end
local stock, committed = tonumber(ARGV[1]), tonumber(ARGV[2])
local before = tonumber(redis.call('GET', stockKey) or '0')
redis.call('SET', stockKey, stock)
if stock > before then
    note_added(counterKey, before, stock, now_ms(), true)
end
redis.call('HSET', counterKey, 'initial', stock + committed + inReview, 'open_reserved', inReview, 'committed', committed)
return {1, 'RECALIBRATED'}
