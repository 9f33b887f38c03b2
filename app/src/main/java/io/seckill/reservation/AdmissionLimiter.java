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

    private static final int UNLIMITED = Integer.MAX_VALUE;

    private final RateLimiter limiter;
    private final Counter limited;

    AdmissionLimiter(SeckillProperties props, MeterRegistry meters) {
        int perSecond = props.admission().maxPerSecond();
        this.limiter = RateLimiter.of("admission", RateLimiterConfig.custom()
                .limitForPeriod(perSecond == 0 ? UNLIMITED : perSecond)
                .limitRefreshPeriod(Duration.ofSeconds(1))
                .timeoutDuration(Duration.ZERO)
                .build());
        this.limited = meters.counter("reservation.rate_limited");
    }

    /** @return false when this second's permits are used up */
    boolean tryAcquire() {
        if (limiter.acquirePermission()) {
            return true;
        }
        limited.increment();
        return false;
    }

    /** Changes the rate at run time (0 = no limit); takes effect from the next second. */
    public void setMaxPerSecond(int perSecond) {
        if (perSecond < 0) {
            throw new IllegalArgumentException("max per second must be 0 (no limit) or positive");
        }
        limiter.changeLimitForPeriod(perSecond == 0 ? UNLIMITED : perSecond);
    }
}
