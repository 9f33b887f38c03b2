package io.seckill.reconcile;

import io.seckill.support.OnRedisCluster;
import org.junit.jupiter.api.Tag;

/** {@link RedisLossDrillIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@Tag("slow")
@OnRedisCluster
class RedisLossDrillOnRedisClusterIT extends RedisLossDrillIT {}
