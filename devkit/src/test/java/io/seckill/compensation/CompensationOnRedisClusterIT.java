package io.seckill.compensation;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.seckill.support.TestRedisCluster;

/** {@link CompensationIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
class CompensationOnRedisClusterIT extends CompensationIT {

    @DynamicPropertySource
    static void onCluster(DynamicPropertyRegistry registry) {
        TestRedisCluster.properties(registry);
    }
}
