package io.seckill.runbook;

import io.seckill.support.OnRedisCluster;

/** {@link RunbookIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@OnRedisCluster
class RunbookOnRedisClusterIT extends RunbookIT {
}
