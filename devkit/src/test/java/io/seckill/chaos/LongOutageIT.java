package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.AdmissionBreaker;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TestEngines;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Outages of minutes, not seconds, with work already in flight when they start: Redis stopped (and
 * restarted with its data) while compensations are pending, the broker stopped while order events
 * wait in the outbox, PostgreSQL stopped while buyers keep reserving. Transient failures are retried for as long as they last - nothing goes MANUAL -
 * and afterwards every QUEUED reservation is terminal and every invariant holds.
 * {@code -Dseckill.outage.seconds} sets the outage (default 300).
 */
@Tag("outage")
class LongOutageIT extends IntegrationTest {

    private static final Duration OUTAGE = Duration.ofSeconds(Long.getLong("seckill.outage.seconds", 300));

    @Autowired
    AdmissionBreaker breaker;

    /** Each outage starts from a pipeline at rest: the entry breaker closed (another test may have tripped it). */
    @BeforeEach
    void atRest() {
        Awaitility.await()
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> !breaker.isOpen());
    }

    @Test
    @DisplayName(
            "a 5-minute Redis stop with compensations in flight: admission fails closed, tasks retry without going "
                    + "MANUAL, all compensated after the restart, every invariant PASS")
    void redisStop() throws Exception {
        long activityId = openSale(15);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        List<String> queued = new ArrayList<>();
        // buyers 1-5 lose their one-attempt marks (as a failover loses them) and come back: Redis admits their
        // second attempts, PostgreSQL's one-order-per-user key rejects 5 of the 15
        for (int u = 1; u <= 15; u++) {
            long buyer = u <= 10 ? u : u - 10;
            if (u > 10) {
                redis.sync().del(slot.user(buyer));
            }
            SaleClient.Response r = reserve(buyer, activityId, 1);
            assertThat(r.status()).isEqualTo(202);
            queued.add((String) r.body().get("reservation_id"));
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> count(
                                "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> 'RESERVED'",
                                activityId)
                        == 15);
        assertThat(count(
                        "SELECT count(*) FROM compensation_task t JOIN inventory_reservation r USING (reservation_id) "
                                + "WHERE r.activity_id = ? AND t.status = 'PENDING'",
                        activityId))
                .isEqualTo(5);
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() ->
                        activities.inventoryView(activityId).getFirst().redis().committed() == 10);

        TestEngines.get().stopRedis();
        ScheduledExecutorService worker = compensationRole();
        try {
            Map<String, Integer> during = buyersDuringOutage(activityId, queued);
            assertThat(during.keySet())
                    .as("fail closed while Redis is down: " + during)
                    .containsOnly("ADMISSION_PAUSED");
            assertThat(count(
                            "SELECT count(*) FROM compensation_task t JOIN inventory_reservation r USING (reservation_id) "
                                    + "WHERE r.activity_id = ? AND t.status = 'MANUAL'",
                            activityId))
                    .as("transient: never MANUAL")
                    .isZero();
            assertThat(count(
                            "SELECT count(*) FROM reconcile_anomaly a JOIN inventory_reservation r "
                                    + "ON a.object_id = r.reservation_id::text WHERE r.activity_id = ? AND a.anomaly_type = 'COMPENSATION_STALLED'",
                            activityId))
                    .as("a person hears of it")
                    .isEqualTo(5);

            TestEngines.get().startRedis();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> count(
                                    "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status = 'COMPENSATED'",
                                    activityId)
                            == 5);
        } finally {
            stop(worker);
        }
        assertAllTerminalNoManual(activityId, queued);
        assertThat(redis.sync().get(slot.stock()))
                .as("the 5 rejected units are back")
                .isEqualTo("5");
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("a 5-minute broker stop with order events in the outbox: the relay retries without going MANUAL, "
            + "admission pauses, everything flows after the restart, every invariant PASS")
    void brokerStop() throws Exception {
        long activityId = openSale(50);
        List<String> queued = new ArrayList<>();
        List<UUID> orders = new ArrayList<>();
        for (int u = 1; u <= 10; u++) {
            orders.add(placeOrder(activityId, 1, u));
        }
        awaitSettled(activityId, 10);

        TestEngines.get().broker().kill();
        // in flight when the outage starts: buyers cancel, the cancellation events wait in the outbox
        for (int i = 0; i < 4; i++) {
            SaleClient.Response c =
                    client().post("/api/v1/orders/" + orders.get(i) + "/cancel", userToken(i + 1), null);
            assertThat(c.status()).as(c.body().toString()).isEqualTo(200);
        }
        // reservations admitted now outlive their business deadline: the sweeper rejects them, compensation runs
        ScheduledExecutorService worker = compensationRole();
        try {
            Map<String, Integer> during = buyersDuringOutage(activityId, queued);
            assertThat(during).as("the entry breaker paused admission").containsKey("ADMISSION_PAUSED");
            assertThat(count("SELECT count(*) FROM event_outbox WHERE status = 'MANUAL'"))
                    .as("transient: never MANUAL")
                    .isZero();
            assertThat(count(
                            "SELECT count(*) FROM event_outbox e JOIN orders o ON o.order_id = e.aggregate_id "
                                    + "WHERE o.activity_id = ? AND e.status <> 'SENT'",
                            activityId))
                    .as("still waiting, visible")
                    .isPositive();

            TestEngines.get().broker().start();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(180))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> count(
                                            "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status IN ('RESERVED', "
                                                    + "'ORDER_REJECTED', 'COMPENSATING')",
                                            activityId)
                                    == 0
                            && count(
                                            "SELECT count(*) FROM event_outbox e JOIN orders o ON o.order_id = e.aggregate_id "
                                                    + "WHERE o.activity_id = ? AND e.status <> 'SENT'",
                                            activityId)
                                    == 0);
            awaitSettled(activityId, 10 + queued.size());
            SkuSlot slot = SkuSlot.single(activityId, 1);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(120))
                    .until(() -> redis.sync().zcard(slot.sendDue()) == 0);
        } finally {
            stop(worker);
        }
        assertAllTerminalNoManual(activityId, queued);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "a 5-minute PostgreSQL stop mid-sale: admission goes on until the order backlog passes its limit, then "
                    + "pauses (503 ADMISSION_PAUSED); the order consumer holds its batches instead of using up redeliveries, the "
                    + "deadline sweeper waits for them, every reservation becomes an order after the restart, admission opens "
                    + "again, every invariant PASS")
    void postgresStop() throws Exception {
        // the business deadline is shorter than the outage: only the sweeper's backlog pause keeps these orders
        long activityId = openSale(60, new int[] {1_000});
        for (int u = 1; u <= 5; u++) {
            placeOrder(activityId, 1, u);
        }
        awaitSettled(activityId, 5);
        double heldBefore = meters.counter("order.commit.held").count();
        double retriesBefore =
                meters.counter("order.consume", "result", "retry").count();
        List<String> queued = new ArrayList<>();
        long backlogPauses = breaker.trips(AdmissionBreaker.Cause.ORDER_BACKLOG);

        TestEngines.get().stopPostgres();
        try {
            Map<String, Integer> during = buyersDuringOutage(activityId, queued);
            assertThat(during).as("admission needs no PostgreSQL").containsKey("QUEUED");
            if (OUTAGE.compareTo(props.admission().maxOrderBacklogAge().multipliedBy(2)) > 0) {
                // DESIGN.md §11.3 point 1: buyers are not queued for orders further away than the backlog limit
                assertThat(during.keySet()).as("answers during the outage").containsOnly("QUEUED", "ADMISSION_PAUSED");
                assertThat(breaker.trips(AdmissionBreaker.Cause.ORDER_BACKLOG))
                        .as("paused for the order backlog")
                        .isGreaterThan(backlogPauses);
            }
            assertThat(meters.counter("order.commit.held").count())
                    .as("the consumer held its batches")
                    .isGreaterThan(heldBefore);
        } finally {
            TestEngines.get().startPostgres();
        }
        long back = System.nanoTime();
        Awaitility.await()
                .atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> count(
                                "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status = 'ORDER_CREATED'",
                                activityId)
                        == 5 + queued.size());
        // a held batch probes PostgreSQL at least every 5 s and the pool gives up on a connection after 5 s: the
        // orders follow within seconds of the restart, not after the broker's redelivery delays
        assertThat((System.nanoTime() - back) / 1_000_000)
                .as("ms from the restart until every order was created")
                .isLessThan(20_000);
        assertThat(count(
                        "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> 'ORDER_CREATED'",
                        activityId))
                .as("none rejected for its deadline while its message waited")
                .isZero();
        assertThat(meters.counter("order.consume", "result", "retry").count())
                .as("no redelivery used up")
                .isEqualTo(retriesBefore);
        awaitSettled(activityId, 5 + queued.size());
        assertAllTerminalNoManual(activityId, queued);
        Awaitility.await("admission open again")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> !breaker.isOpen());
        assertThat(reserve(100, activityId, 1).status())
                .as("a buyer after the restart")
                .isEqualTo(202);
        awaitSettled(activityId, 6 + queued.size());
        assertInvariants(activityId, true);
    }

    /** One buyer a second for the whole outage: the answers by code; the admitted ones join {@code queued}. */
    private Map<String, Integer> buyersDuringOutage(long activityId, List<String> queued) throws Exception {
        Map<String, Integer> codes = new TreeMap<>();
        long until = System.nanoTime() + OUTAGE.toNanos();
        for (long user = 101; System.nanoTime() < until; user++) {
            SaleClient.Response r = reserve(user, activityId, 1);
            codes.merge(r.code(), 1, Integer::sum);
            if (r.status() == 202) {
                queued.add((String) r.body().get("reservation_id"));
            }
            TimeUnit.MILLISECONDS.sleep(1000);
        }
        return codes;
    }

    private void assertAllTerminalNoManual(long activityId, List<String> queued) {
        for (String rid : queued) {
            assertThat(jdbc.queryForObject(
                            "SELECT status FROM inventory_reservation WHERE reservation_id = ?::uuid",
                            String.class,
                            rid))
                    .as(rid)
                    .isIn("ORDER_CREATED", "CANCELLED", "COMPENSATED");
        }
        assertThat(count(
                        "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status = 'MANUAL_REVIEW'",
                        activityId))
                .isZero();
        assertThat(count(
                        "SELECT count(*) FROM compensation_task WHERE status = 'MANUAL' AND reservation_id IN "
                                + "(SELECT reservation_id FROM inventory_reservation WHERE activity_id = ?)",
                        activityId))
                .isZero();
        assertThat(count("SELECT count(*) FROM event_outbox WHERE status = 'MANUAL'"))
                .isZero();
    }

    /** The compensation role as a deployment runs it (the test context drives it by hand otherwise). */
    private ScheduledExecutorService compensationRole() {
        ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor();
        worker.scheduleWithFixedDelay(
                () -> runQuietly(() -> compensation.runOnce("outage-compensation")), 0, 500, TimeUnit.MILLISECONDS);
        return worker;
    }

    private static void stop(ScheduledExecutorService worker) throws InterruptedException {
        worker.shutdownNow();
        worker.awaitTermination(30, TimeUnit.SECONDS);
    }

    private static void runQuietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            // the worker's own loop counts and backs off; here a failed pass during the outage is expected
            org.slf4j.LoggerFactory.getLogger(LongOutageIT.class)
                    .debug("pass failed during the outage: {}", e.toString());
        }
    }
}
