package io.seckill.payment;

import io.seckill.support.OnRedisCluster;

/** {@link PaymentIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@OnRedisCluster
class PaymentOnRedisClusterIT extends PaymentIT {
}
