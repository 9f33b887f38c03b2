package io.seckill.reservation;

import org.junit.jupiter.api.Tag;

import io.seckill.support.OnRedisCluster;

/** {@link SendDueScannerIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@Tag("slow")
@OnRedisCluster
class SendDueScannerOnRedisClusterIT extends SendDueScannerIT {
}
