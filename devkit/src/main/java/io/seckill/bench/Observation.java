package io.seckill.bench;

import io.seckill.redis.Redis;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.springframework.context.ConfigurableApplicationContext;

/** One wrk run of a bench part and what the application saw during it. */
final class Observation {

    private Observation() {}

    /** A Redis call whose execution inside redis-server took this long or longer is counted as slow (its slow log). */
    static final Duration SLOW_REDIS_CALL = Duration.ofMillis(1);

    /**
     * One wrk run and what the application saw during it: its CPU, the entry's own answer times (null when
     * the run was not against the entry), Redis's slow calls.
     */
    record Observed(ExternalLoad.WrkResult wrk, long cpuNanos, String inEntry, String redis) {}

    static Observed observe(ConfigurableApplicationContext app, boolean entry, Callable<ExternalLoad.WrkResult> wrkRun)
            throws Exception {
        EntryAnswerTimes inEntry = entry ? new EntryAnswerTimes(app) : null;
        try (RedisSlowCalls slowLog =
                new RedisSlowCalls(app.getBean(Redis.class).sync(), SLOW_REDIS_CALL)) {
            long cpu0 = CpuMeter.selfNanos();
            ExternalLoad.WrkResult r = wrkRun.call();
            long cpu = CpuMeter.selfNanos() - cpu0;
            return new Observed(
                    r,
                    cpu,
                    inEntry == null ? null : inEntry.sinceStart(),
                    slowLog.read().describe(r.answers(), SLOW_REDIS_CALL));
        }
    }
}
