package io.seckill.support;

import java.nio.file.Files;

import java.util.Map;

import io.seckill.engines.RedisClusterNodes;

/**
 * One Redis Cluster on loopback per test JVM (three masters, a replica each), and the properties that
 * run a test class's application on it: its own topics and consumer groups, so its pipeline never
 * meets the standalone context's.
 */
public final class TestRedisCluster {

    private static final OncePerJvm<RedisClusterNodes> ONCE = new OncePerJvm<>("the Redis Cluster",
            () -> OncePerJvm.closedOnExit(RedisClusterNodes.start(Files.createTempDirectory("seckill-redis-cluster"), 3, 1)));

    private TestRedisCluster() {
    }

    public static RedisClusterNodes get() {
        return ONCE.get();
    }

    /** What runs an application on the cluster: the seed nodes, and topics and groups no other context uses. */
    public static Map<String, Object> properties() {
        return Map.of("seckill.redis-cluster", get().seeds(),
                "seckill.mq.order-request-topic", "SECKILL_ORDER_REQUEST_ON_CLUSTER",
                "seckill.mq.order-event-topic", "SECKILL_ORDER_EVENT_ON_CLUSTER",
                "seckill.mq.order-consumer-group", "seckill-order-consumer-on-cluster",
                "seckill.mq.projection-group", "seckill-projection-on-cluster");
    }
}
