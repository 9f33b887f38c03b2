package io.seckill.ratelimit;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * How many calls each user made in the current second, for a per-user cap. The counts of a second are
 * dropped when the next one starts, so memory is bounded by one second's distinct users; a cap of 0
 * means no cap (nothing is counted).
 */
public final class PerUserWindow {

    private final LongSupplier nanos;
    private volatile Window window = new Window(Long.MIN_VALUE, new ConcurrentHashMap<>());

    private record Window(long second, ConcurrentHashMap<Long, Integer> counts) {}

    public PerUserWindow() {
        this(System::nanoTime);
    }

    /** With the clock a test drives. */
    public PerUserWindow(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /** Counts the call; false when it is over {@code limit} calls of {@code userId} in this second. */
    public boolean tryAcquire(long userId, int limit) {
        if (limit <= 0) {
            return true;
        }
        long second = Math.floorDiv(nanos.getAsLong(), 1_000_000_000L);
        Window w = window;
        if (w.second() != second) {
            w = new Window(second, new ConcurrentHashMap<>());
            window = w;
        }
        return w.counts().merge(userId, 1, Integer::sum) <= limit;
    }
}
