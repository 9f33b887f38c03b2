package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.seckill.cli.SaleClient;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TestEngines;

/** A Redis that hangs - connections open, nothing answered - against buyers' requests. */
class RedisHangIT extends IntegrationTest {

    private static final int BUYERS = 160;
    private static final int AT_ONCE = 16;

    @Test
    @DisplayName("Redis hung (SIGSTOP): once the first calls time out, reserve calls are refused 503 ADMISSION_PAUSED at "
            + "once instead of each holding a request thread for the 2 s timeout, and a status poll reads PostgreSQL; "
            + "resumed, admission comes back by itself and every invariant holds")
    void hungRedisIsRefusedAtOnce() throws Exception {
        long activityId = openSale(BUYERS + 10);
        String settled = firstSettled(activityId, 601);
        double refusedBefore = counter("redis.breaker.refused");
        Map<String, AtomicInteger> codes = new ConcurrentHashMap<>();
        AtomicInteger waited = new AtomicInteger();
        AtomicInteger atOnce = new AtomicInteger();
        SaleClient.Response poll;
        ExecutorService buyers = Executors.newFixedThreadPool(AT_ONCE);
        TestEngines.get().pauseRedis();
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int u = 0; u < BUYERS; u++) {
                long userId = 700 + u;
                calls.add(buyers.submit(() -> {
                    long t0 = System.nanoTime();
                    SaleClient.Response r = reserve(userId, activityId, 1);
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    codes.computeIfAbsent(r.code(), k -> new AtomicInteger()).incrementAndGet();
                    (ms >= 1000 ? waited : ms < 200 ? atOnce : new AtomicInteger()).incrementAndGet();
                    return null;
                }));
            }
            for (Future<?> c : calls) {
                c.get(60, TimeUnit.SECONDS);
            }
            poll = client().get("/api/v1/reservations/" + settled + "?activity_id=" + activityId + "&sku_id=1",
                    userToken(601));
        } finally {
            TestEngines.get().resumeRedis();
            buyers.shutdownNow();
        }
        assertThat(codes.keySet()).as("answers while Redis hung: " + codes).containsOnly("ADMISSION_PAUSED");
        assertThat(waited.get()).as("calls that waited for Redis's timeout (%d at once)", AT_ONCE).isLessThanOrEqualTo(2 * AT_ONCE);
        assertThat(atOnce.get()).as("calls refused in under 200 ms").isGreaterThanOrEqualTo(BUYERS - 3 * AT_ONCE);
        assertThat(counter("redis.breaker.refused") - refusedBefore).as("refused by the Redis breaker, not asked")
                .isGreaterThanOrEqualTo(BUYERS - 3 * AT_ONCE);
        assertThat(poll.status()).as(poll.body().toString()).isEqualTo(200);
        assertThat(poll.body()).containsEntry("state", "ORDER_CREATED").containsEntry("source", "postgres");

        Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(500))
                .until(() -> "QUEUED".equals(reserve(699, activityId, 1).code()));
        awaitSettled(activityId, 2);
        assertInvariants(activityId, true);
    }
}
