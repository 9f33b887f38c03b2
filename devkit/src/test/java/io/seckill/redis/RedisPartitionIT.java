package io.seckill.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.seckill.support.TcpProxy;
import io.seckill.support.TestEngines;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The network between the application and Redis drops everything, then comes back for new connections
 * only: the one open before stays silent for good, as the address of a master a failover left behind.
 */
class RedisPartitionIT {

    @Test
    @DisplayName("Redis partitioned away, the old connection silent for good: the breaker opens on the timeouts and "
            + "the connection is made anew, so calls are answered again within seconds of the heal")
    void reconnectsPastASilentConnection() throws Exception {
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", TestEngines.get().redisPort());
                Redis redis = Redis.connect("redis://127.0.0.1:" + proxy.port(), List.of())) {
            RedisBreaker breaker = new RedisBreaker(new SimpleMeterRegistry(), redis);
            assertThat(breaker.call("partition-probe", () -> redis.sync().set("partition-probe", "1")))
                    .isEqualTo("OK");

            proxy.partition();
            try (ExecutorService callers = Executors.newFixedThreadPool(10)) {
                List<Future<?>> calls = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    calls.add(callers.submit(() ->
                            breaker.call("partition-probe", () -> redis.sync().get("partition-probe"))));
                }
                for (Future<?> call : calls) {
                    assertThatThrownBy(call::get)
                            .as("a call while partitioned")
                            .hasCauseInstanceOf(RedisException.class);
                }
            }
            assertThat(breaker.isClosed())
                    .as("ten unanswered calls open the breaker")
                    .isFalse();
            proxy.heal();
            long healed = System.nanoTime();

            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions()
                    .until(() -> "1"
                            .equals(breaker.call(
                                    "partition-probe", () -> redis.sync().get("partition-probe"))));
            assertThat((System.nanoTime() - healed) / 1_000_000)
                    .as("ms from the heal until Redis answered again")
                    .isLessThan(10_000);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions()
                    .until(() -> {
                        breaker.call("partition-probe", () -> redis.sync().get("partition-probe"));
                        return breaker.isClosed();
                    });
            redis.sync().del("partition-probe");
        }
    }
}
