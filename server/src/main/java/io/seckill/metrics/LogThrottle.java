package io.seckill.metrics;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps a hot-path failure log from flooding (and starving the box) when a dependency is down:
 * at most one line per interval, reporting how many were suppressed. Metrics still count every one.
 */
public final class LogThrottle {

    private final long intervalNanos;
    private final AtomicLong nextAllowed = new AtomicLong();
    private final AtomicLong suppressed = new AtomicLong();

    public LogThrottle(java.time.Duration interval) {
        this.intervalNanos = interval.toNanos();
    }

    /** -1 when this event should not be logged; otherwise how many were suppressed since the last line. */
    public long tryAcquire() {
        long now = System.nanoTime();
        long next = nextAllowed.get();
        if (now - next >= 0 && nextAllowed.compareAndSet(next, now + intervalNanos)) {
            return suppressed.getAndSet(0);
        }
        suppressed.incrementAndGet();
        return -1;
    }
}
