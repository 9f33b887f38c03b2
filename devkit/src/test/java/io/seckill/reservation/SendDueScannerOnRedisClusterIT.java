package io.seckill.reservation;

import io.seckill.support.OnRedisCluster;
import org.junit.jupiter.api.Tag;

/** {@link SendDueScannerIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@Tag("slow")
@OnRedisCluster
class SendDueScannerOnRedisClusterIT extends SendDueScannerIT {}
