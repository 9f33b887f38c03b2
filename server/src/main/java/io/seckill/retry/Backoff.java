package io.seckill.retry;

import java.time.Duration;

/**
 * Capped exponential backoff, written once: {@code base * 2^(attempts - 1)}, at most {@code max}.
 * Workers whose retry time lives in PostgreSQL compute it on the database clock with
 * {@link #SQL_DELAY}; those whose retry time lives in Redis use {@link #after(int)}.
 */
public record Backoff(Duration base, Duration max) {

    /** Doublings stop here: a long outage must not overflow the interval arithmetic. */
    private static final int MAX_DOUBLINGS = 16;

    /**
     * The delay as SQL, binding {@code base} then {@code max} as intervals; {@code %s} is the
     * attempt-count column.
     */
    public static final String SQL_DELAY =
            "least(?::interval * power(2, least(greatest(%s - 1, 0), " + MAX_DOUBLINGS + ")), ?::interval)\n";

    public Backoff {
        if (base.isNegative() || base.compareTo(max) > 0) {
            throw new IllegalArgumentException("backoff base " + base + " must be between 0 and max " + max);
        }
    }

    /** The delay before attempt {@code attempts + 1}, after {@code attempts} failed ones. */
    public Duration after(int attempts) {
        int doublings = Math.min(Math.max(attempts - 1, 0), MAX_DOUBLINGS);
        long ms = base.toMillis() << doublings;
        return ms < 0 || ms > max.toMillis() ? max : Duration.ofMillis(ms);
    }
}
