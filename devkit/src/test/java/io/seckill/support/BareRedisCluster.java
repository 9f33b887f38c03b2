package io.seckill.support;

import io.seckill.engines.RedisClusterNodes;
import java.nio.file.Files;
import java.util.Map;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;

/**
 * One Redis Cluster of three masters without replicas per test JVM ({@code cluster-require-full-coverage no}):
 * a master that hangs or dies is not failed over, its slots stay silent and the other masters serve on. A
 * test class runs its application on it with {@code @ContextConfiguration(initializers = BareRedisCluster.OnIt.class)},
 * with topics and consumer groups no other context uses.
 */
public final class BareRedisCluster {

    private static final OncePerJvm<RedisClusterNodes> ONCE = new OncePerJvm<>(
            "the Redis Cluster without replicas",
            () -> OncePerJvm.closedOnExit(
                    RedisClusterNodes.start(Files.createTempDirectory("seckill-bare-cluster"), 3, 0)));

    private BareRedisCluster() {}

    public static RedisClusterNodes get() {
        return ONCE.get();
    }

    /** Runs a test class's application on the cluster without replicas. */
    public static final class OnIt implements ApplicationContextInitializer<ConfigurableApplicationContext> {
        @Override
        public void initialize(ConfigurableApplicationContext context) {
            context.getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource(
                            "bare-redis-cluster",
                            Map.of(
                                    "seckill.redis-cluster", get().seeds(),
                                    "seckill.mq.order-request-topic", "SECKILL_ORDER_REQUEST_BARE",
                                    "seckill.mq.order-event-topic", "SECKILL_ORDER_EVENT_BARE",
                                    "seckill.mq.order-consumer-group", "seckill-order-consumer-bare",
                                    "seckill.mq.projection-group", "seckill-projection-bare")));
        }
    }
}
