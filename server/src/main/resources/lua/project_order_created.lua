-- ORDER_CREATED projection (DESIGN.md §7.1, §13.4): RESERVED -> ORDER_CREATED, open_reserved - 1,
-- committed + 1, once. A second delivery finds the status already moved and changes nothing.
-- KEYS[1] reservation hash  KEYS[2] counter hash
-- ARGV[1] reservation_id    ARGV[2] order_id
-- Returns {1, 'PROJECTED'} | {2, 'ALREADY_PROJECTED'} | {-1, 'RESERVATION_MISSING'}
--       | {-2, 'RESERVATION_ID_MISMATCH'} | {-4, 'INVALID_STATUS:<status>'}
local reservationKey, counterKey = KEYS[1], KEYS[2]
local reservationId, orderId = ARGV[1], ARGV[2]
--@include reservation

local status, refused = reservation_status(reservationKey, reservationId)
if refused then
    return refused
end
if status == 'ORDER_CREATED' or status == 'PAID' or status == 'CANCEL_PENDING' or status == 'CANCELLED' then
    return {2, 'ALREADY_PROJECTED'}
end
if status ~= 'RESERVED' then
    return {-4, 'INVALID_STATUS:' .. tostring(status)}
end
redis.call('HSET', reservationKey, 'status', 'ORDER_CREATED', 'order_id', orderId)
commit_reserved(counterKey)
return {1, 'PROJECTED'}
