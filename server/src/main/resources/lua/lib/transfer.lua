-- Landing of a unit transferred from another bucket of the same SKU (docs/SCALE-OUT.md, "Hot SKU over
-- buckets"); LuaScript puts this text in place of a script's include line for "transfer".

-- Lands the unit of transfer transferId in this bucket once: stock + 1 and initial + 1 (the bucket now
-- holds one more of the SKU's units; added by refill.lua's add_units as an addition, not a return),
-- under a marker that makes every later landing of the same id a no-op. Returns 1 when it landed now,
-- 2 when it had landed before, 0 when this bucket cannot take it (keys missing or the slot paused for
-- recalibration): the unit then stays in transit, recorded in its source bucket, until the reconciler
-- lands it. Scripts that include it include refill first.
local function land_transfer(stockKey, counterKey, metaKey, markerKey, transferId, markerTtlMs, nowMs)
    if redis.call('EXISTS', markerKey) == 1 then
        return 2
    end
    local status = redis.call('HGET', metaKey, 'status')
    if not status or status == 'PAUSED' or redis.call('EXISTS', counterKey) == 0 then
        return 0
    end
    add_units(stockKey, counterKey, 1, nowMs, false)
    redis.call('HINCRBY', counterKey, 'initial', 1)
    redis.call('SET', markerKey, transferId, 'PX', markerTtlMs)
    return 1
end
