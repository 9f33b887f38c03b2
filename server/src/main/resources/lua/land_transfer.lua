-- The second half of a transfer between buckets, on its own: the reconciler lands a unit whose
-- transfer stopped between the halves (the process died, or the buyer's call failed).
-- KEYS[1] stock  KEYS[2] counter hash  KEYS[3] sale meta hash  KEYS[4] transfer marker
-- ARGV[1] transfer id  ARGV[2] marker TTL ms
-- Returns {1, 'LANDED'} | {2, 'ALREADY_LANDED'} | {0, 'NOT_LANDABLE'}
--@include refill
--@include transfer

local landed = land_transfer(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], tonumber(ARGV[2]), now_ms())
if landed == 1 then
    return {1, 'LANDED'}
elseif landed == 2 then
    return {2, 'ALREADY_LANDED'}
end
return {0, 'NOT_LANDABLE'}
