-- Shared guards of the scripts that move one reservation hash; LuaScript puts this text in place of
-- a script's include line for "reservation". Each script stays one EVALSHA; Redis sees one source.

-- The hash's status, or nil and the refusal to return: a missing hash is never a reason to move
-- stock (a failover, a TTL or an archive may have taken it), and an id that does not match the hash
-- is someone else's reservation.
local function reservation_status(reservationKey, reservationId)
    if redis.call('EXISTS', reservationKey) == 0 then
        return nil, {-1, 'RESERVATION_MISSING'}
    end
    local fields = redis.call('HMGET', reservationKey, 'reservation_id', 'status')
    if fields[1] ~= reservationId then
        return nil, {-2, 'RESERVATION_ID_MISMATCH'}
    end
    return fields[2], nil
end

-- A hash still RESERVED first takes the ORDER_CREATED moves: open_reserved - 1, committed + 1.
-- Every script that moves a reservation past ORDER_CREATED calls this, so events that arrive out of
-- order move the counters exactly as in order.
local function commit_reserved(counterKey)
    redis.call('HINCRBY', counterKey, 'open_reserved', -1)
    redis.call('HINCRBY', counterKey, 'committed', 1)
end

-- A once-marker: nil when this move has not happened yet; else {2, doneWord} when it happened with
-- this id, {-5, conflictWord} when with another.
local function marker_reply(markerKey, id, doneWord, conflictWord)
    local marker = redis.call('GET', markerKey)
    if not marker then
        return nil
    end
    if marker == id then
        return {2, doneWord}
    end
    return {-5, conflictWord}
end
