package io.seckill.payment;

import org.junit.jupiter.api.Tag;

import io.seckill.support.OnRedisCluster;

/** {@link PaymentIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@Tag("slow")
@OnRedisCluster
class PaymentOnRedisClusterIT extends PaymentIT {
}
