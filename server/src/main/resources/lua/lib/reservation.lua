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

-- A move made at most once, under a marker holding the id it was made with. move.apply(status) is
-- called with the hash's status when the move may go on and returns nil once it has made its
-- writes, or the refusal to return; then the marker takes the id and hash and marker live for the
-- terminal TTL. Without a call: the hash's refusal, {2, move.done_word} when the move happened with
-- this id (or the hash already reached move.done_status), {-5, move.conflict_word} when the marker
-- holds another id.
local function move_once(move)
    local status, refused = reservation_status(move.reservation_key, move.reservation_id)
    if refused then
        return refused
    end
    local marker = redis.call('GET', move.marker_key)
    if marker == move.id or (not marker and status == move.done_status) then
        return {2, move.done_word}
    end
    if marker then
        return {-5, move.conflict_word}
    end
    refused = move.apply(status)
    if refused then
        return refused
    end
    redis.call('SET', move.marker_key, move.id)
    redis.call('PEXPIRE', move.reservation_key, move.ttl_ms)
    redis.call('PEXPIRE', move.marker_key, move.ttl_ms)
    return {1, move.moved_word}
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
