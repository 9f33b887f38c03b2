package io.seckill.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.ScriptOutputType;
import io.seckill.redis.Redis;
import io.seckill.support.TestEngines;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The bench's count of Redis calls that took long to execute, against a real Redis. */
class RedisSlowCallsIT {

    /** Spins inside redis-server for ARGV[1] milliseconds: a call whose execution is that long. */
    private static final String SPIN = "local t = redis.call('TIME') local start = t[1] * 1000000 + t[2] "
            + "repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start >= tonumber(ARGV[1]) * 1000 return 1";

    @Test
    @DisplayName("calls of 3 and 6 ms of execution are counted with the longest, a slow call from before is not; "
            + "the count is every entry of the log (a quick call the machine held up counts too); "
            + "the slow log's threshold and length are put back afterwards")
    void countsTheCallsThatTookLong() {
        try (Redis redis =
                Redis.connect("redis://127.0.0.1:" + TestEngines.get().redisPort(), List.of())) {
            var sync = redis.sync();
            var before = sync.configGet("slowlog-log-slower-than", "slowlog-max-len");
            sync.eval(SPIN, ScriptOutputType.INTEGER, new String[0], "12");
            List<Object> logged;
            RedisSlowCalls.Slow slow;
            try (RedisSlowCalls calls = new RedisSlowCalls(sync, Duration.ofMillis(2))) {
                for (int i = 0; i < 20; i++) {
                    sync.get("redis-slow-calls:{t}:quick");
                }
                sync.eval(SPIN, ScriptOutputType.INTEGER, new String[0], "3");
                sync.eval(SPIN, ScriptOutputType.INTEGER, new String[0], "6");
                logged = sync.slowlogGet(1_000);
                slow = calls.read();
            }
            assertThat(spins(logged))
                    .as("the spins in the log, by their argument")
                    .containsExactlyInAnyOrder("3", "6");
            assertThat(slow.calls())
                    .as("calls over 2 ms")
                    .isEqualTo(logged.size())
                    .isGreaterThanOrEqualTo(2);
            assertThat(slow.longest())
                    .isBetween(Duration.ofMillis(6), Duration.ofMillis(50))
                    .isEqualTo(Duration.ofNanos(1_000
                            * logged.stream().mapToLong(e -> micros(e)).max().orElseThrow()));
            assertThat(slow.full()).isFalse();
            assertThat(slow.describe(22, Duration.ofMillis(2)))
                    .startsWith("Redis: " + slow.calls() + " calls over 2 ms of execution (");
            assertThat(sync.configGet("slowlog-log-slower-than", "slowlog-max-len"))
                    .isEqualTo(before);
        }
    }

    /** The last argument of each logged call of the spin script: how long it was asked to spin. */
    private static List<String> spins(List<Object> logged) {
        return logged.stream()
                .map(e -> (List<?>) ((List<?>) e).get(3))
                .filter(args -> args.size() == 4
                        && "EVAL".equalsIgnoreCase(String.valueOf(args.get(0)))
                        && String.valueOf(args.get(1)).startsWith("local t = redis.call('TIME')"))
                .map(args -> String.valueOf(args.get(3)))
                .toList();
    }

    private static long micros(Object entry) {
        return ((Number) ((List<?>) entry).get(2)).longValue();
    }

    @Test
    @DisplayName("a log as long as it may hold says the count is a floor")
    void aFullLogIsAFloor() {
        List<Object> entry = List.of(1L, 1_700_000_000L, 2_500L, List.of("GET", "k"), "127.0.0.1:1", "");
        RedisSlowCalls.Slow slow = RedisSlowCalls.summarize(List.of(entry, entry), 2);
        assertThat(slow.full()).isTrue();
        assertThat(slow.longest()).isEqualTo(Duration.ofMillis(2).plusNanos(500_000));
        assertThat(slow.describe(1_000, Duration.ofMillis(1))).startsWith("Redis: at least 2 calls");
    }
}
