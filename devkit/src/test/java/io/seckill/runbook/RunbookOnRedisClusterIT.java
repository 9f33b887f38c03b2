package io.seckill.runbook;

import io.seckill.support.OnRedisCluster;
import org.junit.jupiter.api.Tag;

/** {@link RunbookIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@Tag("slow")
@OnRedisCluster
class RunbookOnRedisClusterIT extends RunbookIT {}
