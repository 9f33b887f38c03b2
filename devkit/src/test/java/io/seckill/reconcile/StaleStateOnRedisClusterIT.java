package io.seckill.reconcile;

import io.seckill.support.OnRedisCluster;

/** {@link StaleStateIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@OnRedisCluster
class StaleStateOnRedisClusterIT extends StaleStateIT {
}
