-- Units added to a bucket's stock, as an instance that remembers the SKU sold out must learn of them
-- (reservation.SoldOutMemo, docs/SCALE-OUT.md "Sold out, from memory"); LuaScript puts this text in
-- place of a script's include line for "refill".

-- Notes an addition to the bucket's stock (from `before` to `after` units). The counter hash's `added`
-- ("<count>:<ms>") takes a value it never had on every addition - also on a master that lost the last
-- ones in a failover - so an instance that read it before sees that it must look again. An addition
-- that returns units to an empty bucket (`returned`: a release, a compensation, an adjustment, a
-- recalibration, a warm over a drained bucket; not a transfer's landing, whose unit was sellable in its
-- source) also stamps `refilled_ms`: units_held(), below, keeps those units from buyers and transfers for the
-- hold, longer than any instance answers from a memory it has not confirmed.
local function note_added(counterKey, before, after, nowMs, returned)
    local previous = redis.call('HGET', counterKey, 'added')
    local count = tonumber(previous and string.match(previous, '^(%d+):') or '0')
    redis.call('HSET', counterKey, 'added', (count + 1) .. ':' .. nowMs)
    if returned and before <= 0 and after > 0 then
        redis.call('HSET', counterKey, 'refilled_ms', nowMs)
    end
end

-- Adds n units to the bucket's stock and notes the addition: how a script adds units. Returns the stock.
local function add_units(stockKey, counterKey, n, nowMs, returned)
    local after = redis.call('INCRBY', stockKey, n)
    note_added(counterKey, after - n, after, nowMs, returned)
    return after
end

-- Whether the bucket's units are still held after their return to it. The hold is the longer of the caller's
-- (holdMs: its memo's; 0 with the memo off) and the bucket's `hold_ms`, the longest any instance that remembered
-- the SKU sold out asked for (raise_hold.lua): an instance with a shorter poll, or with the memo off, holds
-- returned units as long as the instance that trusts its memory longest.
local function units_held(counterKey, nowMs, holdMs)
    local h = redis.call('HMGET', counterKey, 'refilled_ms', 'hold_ms')
    if not h[1] then
        return false
    end
    local hold = math.max(holdMs, tonumber(h[2] or '0') or 0)
    return hold > 0 and nowMs < tonumber(h[1]) + hold
end

-- The Redis clock in ms.
local function now_ms()
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
