package io.seckill.payment;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.seckill.support.TestRedisCluster;

/** {@link PaymentIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
class PaymentOnRedisClusterIT extends PaymentIT {

    @DynamicPropertySource
    static void onCluster(DynamicPropertyRegistry registry) {
        TestRedisCluster.properties(registry);
    }
}
