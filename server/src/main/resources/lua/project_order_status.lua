-- Order status projection (DESIGN.md, States): the reservation hash follows its order to CANCEL_PENDING and
-- PAID. Events may arrive in any order: a hash still RESERVED first takes the ORDER_CREATED moves
-- (open_reserved - 1, committed + 1) exactly as project_order_created.lua would, and a status never
-- moves backwards (PAID and CANCELLED are final), so a redelivered or late event changes nothing.
-- KEYS[1] reservation hash  KEYS[2] counter hash
-- ARGV[1] reservation_id    ARGV[2] order_id    ARGV[3] target status: CANCEL_PENDING | PAID
-- Returns {1, 'PROJECTED'} | {2, 'ALREADY_PROJECTED'} | {-1, 'RESERVATION_MISSING'}
--       | {-2, 'RESERVATION_ID_MISMATCH'} | {-4, 'INVALID_STATUS:<status>'}
local reservationKey, counterKey = KEYS[1], KEYS[2]
local reservationId, orderId, target = ARGV[1], ARGV[2], ARGV[3]
--@include reservation

if target ~= 'CANCEL_PENDING' and target ~= 'PAID' then
    return redis.error_reply('target must be CANCEL_PENDING or PAID')
end
local status, refused = reservation_status(reservationKey, reservationId)
if refused then
    return refused
end
if status == 'PAID' or status == 'CANCELLED' or status == target then
    return {2, 'ALREADY_PROJECTED'}
end
refused = settle_created(counterKey, status)
if refused then
    return refused
end
redis.call('HSET', reservationKey, 'status', target, 'order_id', orderId)
return {1, 'PROJECTED'}
