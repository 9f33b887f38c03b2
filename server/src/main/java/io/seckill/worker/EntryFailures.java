package io.seckill.worker;

import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.retry.Backoff;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-entry failure handling for the workers that walk a Redis index (send_due, deadline): an entry
 * whose handling failed is moved later in its index by a capped backoff on the Redis clock, so the
 * pass goes on with the others and the next passes reach the healthy entries first. The count of
 * consecutive failures per entry is kept in memory (bounded); it feeds the stalled-work alert.
 */
public final class EntryFailures {

    private static final LuaScript POSTPONE = LuaScript.load("postpone_entry");
    private static final int MAX_TRACKED = 10_000;
    private static final Backoff BACKOFF = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));

    private final ConcurrentHashMap<String, Integer> counts = new ConcurrentHashMap<>();

    /** Records a failure of {@code entry} in {@code index}, postpones it, and returns its consecutive failures. */
    public int failed(Redis redis, String index, String entry) {
        if (counts.size() >= MAX_TRACKED) {
            counts.clear();
        }
        int attempts = counts.merge(index + "|" + entry, 1, Integer::sum);
        POSTPONE.run(redis, new String[] {index}, entry, Long.toString(backoffMs(attempts)));
        return attempts;
    }

    public void succeeded(String index, String entry) {
        if (!counts.isEmpty()) {
            counts.remove(index + "|" + entry);
        }
    }

    /** 1 s doubling to 60 s. */
    public static long backoffMs(int attempts) {
        return BACKOFF.after(attempts).toMillis();
    }
}
