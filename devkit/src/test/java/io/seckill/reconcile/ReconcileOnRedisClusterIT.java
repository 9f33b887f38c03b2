package io.seckill.reconcile;

import io.seckill.support.OnRedisCluster;

/** {@link ReconcileIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@OnRedisCluster
class ReconcileOnRedisClusterIT extends ReconcileIT {
}
