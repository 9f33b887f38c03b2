package io.seckill.runbook;

import org.junit.jupiter.api.Tag;

import io.seckill.support.OnRedisCluster;

/** {@link RunbookIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@Tag("slow")
@OnRedisCluster
class RunbookOnRedisClusterIT extends RunbookIT {
}
