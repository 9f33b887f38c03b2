package io.seckill.ratelimit;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.time.Duration;

/** At most so many calls a second across the instance, refused at once past it; 0 means no cap. */
public final class PerSecondLimit {

    /** null = no cap */
    private final RateLimiter limiter;

    public PerSecondLimit(String name, int perSecond) {
        if (perSecond < 0) {
            throw new IllegalArgumentException(name + ": must be 0 (no cap) or positive, got " + perSecond);
        }
        this.limiter = perSecond == 0
                ? null
                : RateLimiter.of(
                        name,
                        RateLimiterConfig.custom()
                                .limitForPeriod(perSecond)
                                .limitRefreshPeriod(Duration.ofSeconds(1))
                                .timeoutDuration(Duration.ZERO)
                                .build());
    }

    /** Takes one of this second's permits; false when they are used up. */
    public boolean tryAcquire() {
        return limiter == null || limiter.acquirePermission();
    }
}
