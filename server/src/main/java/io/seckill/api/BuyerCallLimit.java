package io.seckill.api;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.ratelimit.PerUserWindow;
import io.seckill.refusal.Refusal;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * One buyer's share of the buyer API beside the reserve call ({@code seckill.api.max-calls-per-buyer-per-second},
 * default 20, 0 = no cap): status polls, the order, opening its payment, cancelling. Above it the call is
 * answered {@code 429 RATE_LIMITED} before the handler reads its body or touches Redis, PostgreSQL or the
 * payment channel - a script polling in a tight loop or opening its payment over and over cannot take
 * the instance's threads and the channel's capacity from other buyers. The reserve call has its own cap
 * ({@code seckill.admission.max-per-user-per-second}), shared with the admission entry.
 */
@Component
public class BuyerCallLimit {

    private final int perSecond;
    private final PerUserWindow window = new PerUserWindow();
    private final Counter limited;

    BuyerCallLimit(@Value("${seckill.api.max-calls-per-buyer-per-second:20}") int perSecond, MeterRegistry meters) {
        if (perSecond < 0) {
            throw new IllegalArgumentException(
                    "seckill.api.max-calls-per-buyer-per-second: must be 0 (no cap) or positive");
        }
        this.perSecond = perSecond;
        this.limited = Counter.builder("api.buyer.rate_limited")
                .description("buyer calls (beside reserve) answered 429: over the buyer's share per second")
                .register(meters);
    }

    /** Counts one call of {@code userId}; a {@link Refusal} of kind TOO_MANY when over the share. */
    void acquire(long userId) {
        if (!window.tryAcquire(userId, perSecond)) {
            limited.increment();
            throw new Refusal(
                    Refusal.Kind.TOO_MANY,
                    "RATE_LIMITED",
                    "too many calls; retry in a second",
                    null,
                    Map.of("retry_after_seconds", 1));
        }
    }
}
