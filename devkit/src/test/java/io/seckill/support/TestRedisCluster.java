package io.seckill.support;

import io.seckill.engines.RedisClusterNodes;
import io.seckill.redis.SkuSlot;
import java.nio.file.Files;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * One Redis Cluster on loopback per test JVM (three masters, a replica each), and the properties that
 * run a test class's application on it: its own topics and consumer groups, so its pipeline never
 * meets the standalone context's.
 */
public final class TestRedisCluster {

    private static final OncePerJvm<RedisClusterNodes> ONCE = new OncePerJvm<>(
            "the Redis Cluster",
            () -> OncePerJvm.closedOnExit(
                    RedisClusterNodes.start(Files.createTempDirectory("seckill-redis-cluster"), 3, 1)));

    private TestRedisCluster() {}

    public static RedisClusterNodes get() {
        return ONCE.get();
    }

    /**
     * A sale from {@code open} whose SKU 1 lives on a master with a replica in sync: a failover an earlier
     * test made may have left one master without a replica, and a sale's slot is where its id hashes.
     */
    public static long saleOnReplicatedMaster(Callable<Long> open) throws Exception {
        return saleWhere(open, port -> get().onlineReplicaOf(port).isPresent(), "a master with a replica in sync");
    }

    /** A sale from {@code open} whose SKU 1 lives on a master other than the one at {@code port}. */
    public static long saleOnAnotherMaster(Callable<Long> open, int port) throws Exception {
        return saleWhere(open, owner -> owner != port, "a master other than :" + port);
    }

    private static long saleWhere(Callable<Long> open, java.util.function.IntPredicate owner, String what)
            throws Exception {
        for (int attempt = 0; attempt < 12; attempt++) {
            long activityId = open.call();
            if (owner.test(get().ownerOf(SkuSlot.single(activityId, 1).stock()))) {
                return activityId;
            }
        }
        throw new IllegalStateException("no sale of 12 landed on " + what);
    }

    /** What runs an application on the cluster: the seed nodes, and topics and groups no other context uses. */
    public static Map<String, Object> properties() {
        return Map.of(
                "seckill.redis-cluster",
                get().seeds(),
                "seckill.mq.order-request-topic",
                "SECKILL_ORDER_REQUEST_ON_CLUSTER",
                "seckill.mq.order-event-topic",
                "SECKILL_ORDER_EVENT_ON_CLUSTER",
                "seckill.mq.order-consumer-group",
                "seckill-order-consumer-on-cluster",
                "seckill.mq.projection-group",
                "seckill-projection-on-cluster");
    }
}
