package io.seckill.reservation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.ratelimit.PerSecondLimit;
import io.seckill.ratelimit.PerUserWindow;
import org.springframework.stereotype.Component;

/**
 * The per-instance admission rates. {@code seckill.admission.max-per-second}: above it a reservation
 * request is answered {@code 429 RATE_LIMITED} before it costs Redis anything, so a burst larger than
 * the instance can carry is shed at the door instead of queuing in threads.
 * {@code seckill.admission.max-per-user-per-second}: one buyer (one token subject) cannot take more
 * than that share, so a script hammering the endpoint is answered 429 without using up the permits of
 * real buyers. Both are judged after the token is verified: an anonymous flood never reaches them.
 */
@Component
public class AdmissionLimiter {

    private volatile PerSecondLimit limiter;
    private volatile int perUser;
    private final Counter limited;
    private final Counter userLimited;
    private final PerUserWindow window = new PerUserWindow();

    AdmissionLimiter(SeckillProperties props, MeterRegistry meters) {
        this.limiter = new PerSecondLimit(
                "seckill.admission.max-per-second", props.admission().maxPerSecond());
        this.perUser = props.admission().maxPerUserPerSecond();
        this.limited = meters.counter("reservation.rate_limited", "scope", "instance");
        this.userLimited = meters.counter("reservation.rate_limited", "scope", "user");
    }

    /** @return false when {@code userId}'s share or this second's permits are used up */
    boolean tryAcquire(long userId) {
        if (!window.tryAcquire(userId, perUser)) {
            userLimited.increment();
            return false;
        }
        if (limiter.tryAcquire()) {
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
        limiter = new PerSecondLimit("seckill.admission.max-per-second", perSecond);
    }

    /** Changes the per-user rate at run time, at once (0 = no limit). */
    public void setMaxPerUserPerSecond(int perSecond) {
        if (perSecond < 0) {
            throw new IllegalArgumentException("max per user per second must be 0 (no limit) or positive");
        }
        perUser = perSecond;
    }
}
