package io.seckill.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Redis loses every key of a hot SKU in the middle of a sale while buyers keep coming. No blind
 * increments: reconciliation notices the missing counters, pauses admission for the SKU, waits for
 * the pipeline to drain, recalibrates from PostgreSQL, re-projects the known reservations and
 * resumes the sale. Afterwards: no oversell, and both conservation equations hold.
 */
class RedisLossDrillIT extends IntegrationTest {

    private static final int STOCK = 60;

    @Autowired
    Reconciler reconciler;

    @Test
    @DisplayName("Redis data-loss drill: keys lost mid-sale -> paused, drained, recalibrated from PostgreSQL, resumed")
    void drill() throws Exception {
        long activityId = openSale(STOCK);
        Set<String> queued = ConcurrentHashMap.newKeySet();
        Map<String, AtomicInteger> answers = new ConcurrentHashMap<>();
        AtomicBoolean lost = new AtomicBoolean();
        AtomicLong nextUser = new AtomicLong();
        ScheduledExecutorService buyers = Executors.newSingleThreadScheduledExecutor();
        buyers.scheduleWithFixedDelay(
                () -> {
                    try {
                        SaleClient.Response r = reserve(nextUser.incrementAndGet(), activityId, 1);
                        answers.computeIfAbsent(
                                        (lost.get() ? "after loss " : "before loss ") + r.code(),
                                        k -> new AtomicInteger())
                                .incrementAndGet();
                        if (r.status() == 202) {
                            queued.add((String) r.body().get("reservation_id"));
                        }
                    } catch (Exception e) {
                        answers.computeIfAbsent("error " + e.getClass().getSimpleName(), k -> new AtomicInteger())
                                .incrementAndGet();
                    }
                },
                0,
                25,
                TimeUnit.MILLISECONDS);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> queued.size() >= 25);
        int deleted = deleteKeys(SkuSlot.single(activityId, 1));
        lost.set(true);
        assertThat(deleted).isPositive();

        Awaitility.await()
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> {
                    Reconciler.Report r = reconciler.run(activityId, Duration.ofMillis(1));
                    return "RECALIBRATED".equals(r.skus().getFirst().redisState());
                });
        int atRecalibration = queued.size();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> queued.size() >= atRecalibration + 10);
        buyers.shutdown();
        assertThat(buyers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(answers.keySet()).noneMatch(k -> k.startsWith("error"));
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'REDIS_KEYS_LOST' AND object_id = ?",
                        activityId + ":1"))
                .isOne();
        assertThat(count(
                        "SELECT count(*) FROM audit_log WHERE action = 'REDIS_RECALIBRATION' AND object_id = ?",
                        activityId + ":1"))
                .isOne();
        // refused while the keys were gone (not warmed), then asked to retry while paused for the recalibration
        assertThat(answers.keySet())
                .as(answers.toString())
                .anyMatch(k -> k.equals("after loss ACTIVITY_NOT_OPEN") || k.equals("after loss ADMISSION_PAUSED"));

        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(300))
                .untilAsserted(() -> {
                    compensation.runOnce("drill");
                    reconciler.run(activityId, Duration.ofMillis(1));
                    var v = activities.inventoryView(activityId).getFirst();
                    assertThat(v.redis().openReserved()).isZero();
                    assertThat(v.crossSystemDelta()).isZero();
                    assertThat(v.redis().invariantDelta()).isZero();
                });
        long orders = count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId);
        assertThat(orders).as("no oversell").isLessThanOrEqualTo(STOCK);
        assertThat(orders).as("the sale went on after the recalibration").isGreaterThanOrEqualTo(atRecalibration + 8);
        long known = count("SELECT count(*) FROM inventory_reservation WHERE reservation_id = ANY (?::uuid[])", (Object)
                queued.toArray(String[]::new));
        assertThat(invariants.terminal(queued))
                .as("every QUEUED reservation PostgreSQL knows is terminal")
                .isEqualTo(known);
        assertThat(queued.size() - known)
                .as("reservations lost with Redis before their message left: %s", answers)
                .isLessThanOrEqualTo(2);
        assertInvariants(activityId, true);
    }
}
