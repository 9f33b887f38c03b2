package io.seckill.mq;

import java.time.Duration;

/**
 * A pause decided from backlog readings: paused once two readings in a row are over the limit (one
 * stale consumer-offset reading pauses nothing), resumed at the first reading at or under
 * {@code resumeAtOrUnder}. A reading whose age is unknown keeps the state as it is, and a reading
 * seen before changes nothing.
 */
public final class BacklogLimit {

    private volatile long limitMs;
    private volatile long resumeMs;
    private long seen;
    private int overInARow;
    private volatile boolean paused;

    /** {@code resumeFraction} of the limit (1 for "as soon as it is under the limit again") resumes. */
    public BacklogLimit(Duration limit, double resumeFraction) {
        set(limit, resumeFraction);
    }

    /** A new limit, from the next reading on. */
    public synchronized void set(Duration limit, double resumeFraction) {
        if (limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException("a backlog limit must be positive: " + limit);
        }
        if (resumeFraction <= 0 || resumeFraction > 1) {
            throw new IllegalArgumentException("resumeFraction must be in (0, 1]: " + resumeFraction);
        }
        this.limitMs = limit.toMillis();
        this.resumeMs = (long) (limitMs * resumeFraction);
        this.overInARow = 0;
    }

    /** Takes {@code r} into account (once) and says whether the backlog holds a pause now. */
    public synchronized boolean update(OrderBacklog.Reading r) {
        if (r.sequence() <= seen || !r.known()) {
            seen = Math.max(seen, r.sequence());
            return paused;
        }
        seen = r.sequence();
        overInARow = r.ageMs() > limitMs ? overInARow + 1 : 0;
        if (overInARow >= 2) {
            paused = true;
        } else if (r.ageMs() <= resumeMs) {
            paused = false;
        }
        return paused;
    }

    public boolean paused() {
        return paused;
    }

    public long limitMs() {
        return limitMs;
    }
}
