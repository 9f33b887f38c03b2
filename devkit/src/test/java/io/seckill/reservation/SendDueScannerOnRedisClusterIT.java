package io.seckill.reservation;

import io.seckill.support.OnRedisCluster;

/** {@link SendDueScannerIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@OnRedisCluster
class SendDueScannerOnRedisClusterIT extends SendDueScannerIT {
}
