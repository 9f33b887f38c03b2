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

-- A move made at most once, under a marker holding the id it was made with: the hash's status when
-- the move may go on; else nil and the reply to return - the hash's refusal, {2, doneWord} when the
-- move happened with this id (or the hash already reached doneStatus), {-5, conflictWord} when the
-- marker holds another id.
local function status_for_move(reservationKey, reservationId, markerKey, id, doneStatus, doneWord, conflictWord)
    local status, refused = reservation_status(reservationKey, reservationId)
    if refused then
        return nil, refused
    end
    local marker = redis.call('GET', markerKey)
    if marker == id or (not marker and status == doneStatus) then
        return nil, {2, doneWord}
    end
    if marker then
        return nil, {-5, conflictWord}
    end
    return status, nil
end

-- The move is made: the marker holds its id, and hash and marker live for the terminal TTL.
local function mark_moved(reservationKey, markerKey, id, ttlMs)
    redis.call('SET', markerKey, id)
    redis.call('PEXPIRE', reservationKey, ttlMs)
    redis.call('PEXPIRE', markerKey, ttlMs)
end

-- A hash that has an order (RESERVED not yet projected, ORDER_CREATED, CANCEL_PENDING) may move on;
-- a RESERVED one first takes the ORDER_CREATED moves. Else the refusal to return.
local function settle_created(counterKey, status)
    if status == 'RESERVED' then
        commit_reserved(counterKey)
    elseif status ~= 'ORDER_CREATED' and status ~= 'CANCEL_PENDING' then
        return {-4, 'INVALID_STATUS:' .. tostring(status)}
    end
    return nil
end
