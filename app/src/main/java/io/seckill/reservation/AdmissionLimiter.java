package io.seckill.reservation;

import java.time.Duration;

import org.springframework.stereotype.Component;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;

/**
 * The per-instance admission rate ({@code seckill.admission.max-per-second}): above it a
 * reservation request is answered {@code 429 RATE_LIMITED} before it costs Redis anything, so a
 * burst larger than the instance can carry is shed at the door instead of queuing in threads.
 */
@Component
public class AdmissionLimiter {

    private volatile RateLimiter limiter;
    private final Counter limited;

    AdmissionLimiter(SeckillProperties props, MeterRegistry meters) {
        this.limiter = limiter(props.admission().maxPerSecond());
        this.limited = meters.counter("reservation.rate_limited");
    }

    /** null = no limit */
    private static RateLimiter limiter(int perSecond) {
        if (perSecond == 0) {
            return null;
        }
        return RateLimiter.of("admission", RateLimiterConfig.custom()
                .limitForPeriod(perSecond)
                .limitRefreshPeriod(Duration.ofSeconds(1))
                .timeoutDuration(Duration.ZERO)
                .build());
    }

    /** @return false when this second's permits are used up */
    boolean tryAcquire() {
        RateLimiter current = limiter;
        if (current == null || current.acquirePermission()) {
            return true;
        }
        limited.increment();
        return false;
    }

    /** Changes the rate at run time, at once (0 = no limit). */
    public void setMaxPerSecond(int perSecond) {
        if (perSecond < 0) {
            throw new IllegalArgumentException("max per second must be 0 (no limit) or positive");
        }
        limiter = limiter(perSecond);
    }
}
