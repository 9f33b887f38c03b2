package io.seckill.payment;

import io.seckill.support.OnRedisCluster;
import org.junit.jupiter.api.Tag;

/** {@link PaymentIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@Tag("slow")
@OnRedisCluster
class PaymentOnRedisClusterIT extends PaymentIT {}
