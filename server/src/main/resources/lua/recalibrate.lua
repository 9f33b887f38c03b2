-- Activity-level recalibration of one SKU slot from PostgreSQL after Redis lost data (see
-- docs/RECONCILIATION.md). Sets the counters to PostgreSQL's truth with nothing in flight:
-- stock = available share, open_reserved = 0, committed = committed share, initial = their sum;
-- restores the sale meta with the given status. Run only after admission was paused and the
-- pipeline drained.
-- KEYS[1] stock  KEYS[2] counter hash  KEYS[3] sale meta hash
-- KEYS[4] transfers hash: units in transit out of this bucket are void, PostgreSQL's count holds them
-- ARGV[1] available  ARGV[2] committed  ARGV[3] start_ms  ARGV[4] end_ms  ARGV[5] status
-- Returns {1, 'RECALIBRATED'}
local stockKey, counterKey, metaKey = KEYS[1], KEYS[2], KEYS[3]
local available, committed = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('SET', stockKey, available)
redis.call('DEL', KEYS[4])
redis.call('HSET', counterKey, 'initial', available + committed, 'open_reserved', 0, 'committed', committed)
redis.call('HSET', metaKey, 'status', ARGV[5], 'start_ms', ARGV[3], 'end_ms', ARGV[4])
return {1, 'RECALIBRATED'}
