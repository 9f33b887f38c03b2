package io.seckill.bench;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Redis's own slow log over one wrk run: the calls whose <em>execution</em> inside redis-server took
 * longer than the threshold. A reservation script costs redis-server well under a tenth of a
 * millisecond; one that took a millisecond or more was redis-server taken off its core mid-command
 * (on a machine it shares), and every call queued behind it waited as long. The log's threshold and
 * length are set for the run and put back after it.
 */
final class RedisSlowCalls implements AutoCloseable {

    /** Enough entries for every slow call of a 40 s run on a busy two-core machine; each holds a few hundred bytes. */
    private static final int MAX_ENTRIES = 50_000;

    private final RedisClusterCommands<String, String> redis;
    private final String savedThreshold;
    private final String savedLength;

    RedisSlowCalls(RedisClusterCommands<String, String> redis, Duration threshold) {
        this.redis = redis;
        Map<String, String> before = redis.configGet("slowlog-log-slower-than", "slowlog-max-len");
        this.savedThreshold = before.get("slowlog-log-slower-than");
        this.savedLength = before.get("slowlog-max-len");
        redis.configSet("slowlog-max-len", Integer.toString(MAX_ENTRIES));
        redis.configSet("slowlog-log-slower-than", Long.toString(threshold.toNanos() / 1_000));
        redis.slowlogReset();
    }

    /** The slow calls logged so far: how many, and the longest's execution time. */
    record Slow(int calls, Duration longest, boolean full) {
        String describe(long answers, Duration threshold) {
            if (calls == 0) {
                return String.format("Redis: no call over %d ms of execution", threshold.toMillis());
            }
            return String.format(
                    "Redis: %s%,d calls over %d ms of execution (%.2f%% of the answers), the longest %.1f ms",
                    full ? "at least " : "",
                    calls,
                    threshold.toMillis(),
                    100.0 * calls / Math.max(1, answers),
                    longest.toNanos() / 1e6);
        }
    }

    Slow read() {
        return summarize(redis.slowlogGet(MAX_ENTRIES), MAX_ENTRIES);
    }

    /** A SLOWLOG GET reply: each entry {@code [id, unix time, microseconds, [args], client, name]}. */
    static Slow summarize(List<Object> entries, int maxEntries) {
        long longestMicros = 0;
        for (Object e : entries) {
            long micros = ((Number) ((List<?>) e).get(2)).longValue();
            longestMicros = Math.max(longestMicros, micros);
        }
        return new Slow(entries.size(), Duration.ofNanos(longestMicros * 1_000), entries.size() >= maxEntries);
    }

    @Override
    public void close() {
        redis.configSet("slowlog-log-slower-than", savedThreshold);
        redis.configSet("slowlog-max-len", savedLength);
        redis.slowlogReset();
    }
}
