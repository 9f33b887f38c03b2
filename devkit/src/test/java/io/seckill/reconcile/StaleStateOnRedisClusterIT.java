package io.seckill.reconcile;

import io.seckill.support.OnRedisCluster;
import org.junit.jupiter.api.Tag;

/** {@link StaleStateIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@Tag("slow")
@OnRedisCluster
class StaleStateOnRedisClusterIT extends StaleStateIT {}
