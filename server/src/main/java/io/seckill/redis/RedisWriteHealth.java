package io.seckill.redis;

import io.lettuce.core.SetArgs;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Redis in readiness, judged by a write: admission writes to Redis, so a Redis that answers reads
 * but refuses or times out writes (down, failing over, out of memory, read-only) takes the instance
 * out of the load balancer. Bean name {@code redis}: the health component of that name.
 */
@Component("redis")
class RedisWriteHealth implements HealthIndicator {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private final Redis redis;
    private final Clock clock;
    private final String key = "seckill:health:" + UUID.randomUUID();

    RedisWriteHealth(Redis redis, Clock clock) {
        this.clock = clock;
        this.redis = redis;
    }

    @Override
    public Health health() {
        long t0 = System.nanoTime();
        try {
            String reply = redis.async()
                    .set(key, Long.toString(clock.millis()), SetArgs.Builder.px(10_000))
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return Health.up()
                    .withDetail("write", reply)
                    .withDetail("millis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0))
                    .build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Health.down().withDetail("error", "interrupted").build();
        } catch (Exception e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return Health.down()
                    .withDetail("error", cause.getClass().getSimpleName() + ": " + cause.getMessage())
                    .build();
        }
    }
}
