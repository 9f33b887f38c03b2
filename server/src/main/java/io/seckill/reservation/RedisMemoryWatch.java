package io.seckill.reservation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.redis.Redis;
import io.seckill.redis.RedisMemory;
import io.seckill.worker.PollingWorker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Watches what admission relies on Redis for: that it keeps every key. An instance refuses to start on
 * a Redis that may evict ({@link RedisMemory#requireNoEviction}); this catches the policy changed at
 * run time, keys evicted all the same, and memory filling up (where a {@code noeviction} Redis starts
 * refusing admission). Every 10 s, on every master: {@code redis_memory_used_ratio} (the fullest
 * master), {@code redis_masters_may_evict}, and {@code redis_evictions_total} (keys Redis dropped since this
 * instance first read the master: what it reports at the first reading is history, logged once, not counted),
 * each change of the last two logged as an ERROR.
 */
@Component
class RedisMemoryWatch extends PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(RedisMemoryWatch.class);

    private final Redis redis;
    private final AtomicLong usedPermille = new AtomicLong();
    private final AtomicInteger mayEvict = new AtomicInteger();
    private final Counter evictions;
    /** evicted_keys per master at the last pass. */
    private final Map<String, Long> evictedBefore = new HashMap<>();

    RedisMemoryWatch(Redis redis, SeckillProperties props, MeterRegistry meters) {
        super("api", "redis.memory.watch", Duration.ofSeconds(10), props, meters);
        this.redis = redis;
        Gauge.builder("redis.memory.used.ratio", usedPermille, p -> p.get() / 1000.0)
                .description("used_memory / maxmemory of the fullest Redis master (0 without a limit)")
                .register(meters);
        Gauge.builder("redis.masters.may.evict", mayEvict, AtomicInteger::get)
                .description("Redis masters with a memory limit and a policy other than noeviction")
                .register(meters);
        this.evictions = Counter.builder("redis.evictions")
                .description("keys Redis dropped to make room (evicted_keys): reservations or units may be lost")
                .register(meters);
    }

    @Override
    protected String threadName() {
        return "redis-memory-watch";
    }

    @Override
    protected int runPass() {
        List<RedisMemory> masters = RedisMemory.read(redis);
        double fullest = 0;
        int evicting = 0;
        for (RedisMemory m : masters) {
            fullest = Math.max(fullest, m.usedShare());
            if (m.mayEvict()) {
                evicting++;
            }
            Long before = evictedBefore.put(m.node(), m.evictedKeys());
            if (before == null) {
                // what a master dropped before this instance watched it is history, not news: counting it would
                // raise the alert again on every restart of the application
                if (m.evictedKeys() > 0) {
                    log.warn(
                            "redis.keys_evicted_before node={} evicted_since_redis_start={}: counted only from now on",
                            m.node(),
                            m.evictedKeys());
                }
                continue;
            }
            // a master restarted since the last pass (its count starts again) counts what it reports
            long dropped = m.evictedKeys() < before ? m.evictedKeys() : m.evictedKeys() - before;
            if (dropped > 0) {
                evictions.increment(dropped);
                log.error(
                        "redis.keys_evicted node={} evicted={} since_start={} policy={} used={} max={}: reservations, "
                                + "units or their send schedule may be lost; set maxmemory-policy noeviction, then reconcile "
                                + "every live sale (docs/ALERTS.md)",
                        m.node(),
                        dropped,
                        m.evictedKeys(),
                        m.policy(),
                        m.usedBytes(),
                        m.maxBytes());
            }
        }
        usedPermille.set(Math.round(fullest * 1000));
        int was = mayEvict.getAndSet(evicting);
        if (evicting > was) {
            log.error(
                    "redis.may_evict masters={} of={}: {} - set maxmemory-policy noeviction",
                    evicting,
                    masters.size(),
                    masters.stream()
                            .filter(RedisMemory::mayEvict)
                            .map(m -> m.node() + " " + m.policy())
                            .toList());
        }
        return 0;
    }
}
