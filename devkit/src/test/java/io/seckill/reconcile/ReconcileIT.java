package io.seckill.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.seckill.activity.SaleRegistry;
import io.seckill.activity.StockAdjustments;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.anomaly.StalledWork;
import io.seckill.compensation.CompensationTasks;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.order.Orders;
import io.seckill.payment.PaymentTestBase;
import io.seckill.projection.OrderProjection;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.Reservations;
import io.seckill.state.HashStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;

class ReconcileIT extends PaymentTestBase {

    private static final Duration NOW = Duration.ofMillis(1);

    @Autowired
    Reconciler reconciler;

    @Autowired
    ReconcileRepository repo;

    @Autowired
    StockAdjustments adjustments;

    @Autowired
    CompensationTasks tasks;

    @Autowired
    Repairs repairs;

    @Autowired
    OrderProjection projection;

    record Sale(long activityId, UUID created, UUID createdReservation, UUID rejected, SkuSlot slot) {}

    /**
     * One order (user 1) and one reservation PostgreSQL rejected: user 1's second attempt, admitted by Redis after a
     * failover lost their one-attempt mark, refused by PostgreSQL's one-order-per-user key. Every count agrees.
     */
    private Sale sale() throws Exception {
        long activityId = openSale(2);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        UUID order = placeOrder(activityId, 1, 1);
        redis.sync().del(slot.user(1));
        assertThat(reserve(1, activityId, 1).status()).isEqualTo(202);
        awaitSettled(activityId, 2);
        UUID created = jdbc.queryForObject("SELECT reservation_id FROM orders WHERE order_id = ?", UUID.class, order);
        UUID rejected = jdbc.queryForObject(
                "SELECT reservation_id FROM inventory_reservation WHERE activity_id = ? "
                        + "AND status = 'ORDER_REJECTED'",
                UUID.class,
                activityId);
        return new Sale(activityId, order, created, rejected, slot);
    }

    /** The ORDER_CREATED projection never reached Redis: the hash is back at RESERVED with its counters. */
    private void unproject(Sale s) {
        redis.sync().hset(s.slot().reservation(s.createdReservation().toString()), "status", "RESERVED");
        redis.sync().hincrby(s.slot().counter(), "committed", -1);
        redis.sync().hincrby(s.slot().counter(), "open_reserved", 1);
    }

    private long repairs(String rule, Object objectId) {
        return count(
                "SELECT count(*) FROM repair_task WHERE rule_name = ? AND object_id = ? AND status = 'DONE'",
                rule,
                objectId.toString());
    }

    @Test
    @DisplayName("one reservation whose rule fails (its Redis key unreadable) does not end the run: counted, and the "
            + "healthy one beside it is still repaired")
    void poisonReservationBesideHealthyOne() throws Exception {
        long activityId = openSale(3);
        UUID poisonOrder = placeOrder(activityId, 1, 11);
        UUID healthyOrder = placeOrder(activityId, 1, 12);
        awaitSettled(activityId, 2);
        UUID poison =
                jdbc.queryForObject("SELECT reservation_id FROM orders WHERE order_id = ?", UUID.class, poisonOrder);
        UUID healthy =
                jdbc.queryForObject("SELECT reservation_id FROM orders WHERE order_id = ?", UUID.class, healthyOrder);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        Map<String, String> saved = redis.sync().hgetall(slot.reservation(poison.toString()));
        redis.sync().del(slot.reservation(poison.toString()));
        redis.sync().set(slot.reservation(poison.toString()), "not a hash");
        redis.sync().hset(slot.reservation(healthy.toString()), "status", "RESERVED");
        redis.sync().hincrby(slot.counter(), "committed", -1);
        redis.sync().hincrby(slot.counter(), "open_reserved", 1);

        Reconciler.Report r = reconciler.run(activityId, NOW);

        assertThat(r.repairs()).containsEntry("RULE_FAILED", 1).containsEntry("REBUILD_ORDER_PROJECTION", 1);
        assertThat(redis.sync().hget(slot.reservation(healthy.toString()), "status"))
                .isEqualTo("ORDER_CREATED");
        redis.sync().del(slot.reservation(poison.toString()));
        redis.sync().hset(slot.reservation(poison.toString()), saved);
        assertThat(reconciler.run(activityId, NOW).repairs()).doesNotContainKey("RULE_FAILED");
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("fault #20: two reconcilers at once over the same anomalies -> one repair each, one effect")
    void twoReconcilersAtOnce() throws Exception {
        Sale s = sale();
        unproject(s);
        jdbc.update("DELETE FROM compensation_task WHERE reservation_id = ?", s.rejected());
        UUID stale = UUID.randomUUID();
        jdbc.update("""
                INSERT INTO event_outbox (event_id, aggregate_type, aggregate_id, event_type, schema_version, message_key,
                                          payload, status, attempt_count, lease_owner, lease_until, next_retry_at)
                VALUES (?, 'ORDER', ?, 'TEST_EVENT', 1, 'k', '{}'::jsonb, 'SENDING', 1, 'relay-gone',
                        clock_timestamp() - interval '1 minute', clock_timestamp() + interval '1 hour')""", stale, UUID.randomUUID());
        assertThat(activities.inventoryView(s.activityId()).getFirst().crossSystemDelta())
                .isEqualTo(-1);

        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Reconciler.Report>> runs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            runs.add(pool.submit(() -> reconciler.run(s.activityId(), NOW)));
        }
        int projections = 0, tasks = 0;
        for (Future<Reconciler.Report> f : runs) {
            Reconciler.Report r = f.get();
            projections += r.repairs().getOrDefault("REBUILD_ORDER_PROJECTION", 0);
            tasks += r.repairs().getOrDefault("ENSURE_COMPENSATION_TASK", 0);
        }
        pool.shutdown();
        assertThat(projections)
                .as("projection rebuilt by exactly one reconciler")
                .isOne();
        assertThat(tasks)
                .as("compensation task ensured by exactly one reconciler")
                .isOne();
        assertThat(repairs("REBUILD_ORDER_PROJECTION", s.createdReservation())).isOne();
        assertThat(repairs("ENSURE_COMPENSATION_TASK", s.rejected())).isOne();
        assertThat(repairs("OUTBOX_LEASE_RECLAIM", stale)).isOne();
        assertThat(jdbc.queryForObject("SELECT status FROM event_outbox WHERE event_id = ?", String.class, stale))
                .isIn("RETRY", "SENDING", "SENT");
        assertThat(count("SELECT count(*) FROM compensation_task WHERE reservation_id = ?", s.rejected()))
                .isOne();
        assertThat(redis.sync().hget(s.slot().reservation(s.createdReservation().toString()), "status"))
                .isEqualTo("ORDER_CREATED");
        assertThat(activities.inventoryView(s.activityId()).getFirst().crossSystemDelta())
                .isZero();

        Reconciler.Report again = reconciler.run(s.activityId(), NOW);
        assertThat(again.repairs())
                .as("a run after the repairs finds nothing to do")
                .isEmpty();
        compensation.runOnce("reconcile-test");
        awaitSettled(s.activityId(), 2);
        assertInvariants(s.activityId(), true);
        jdbc.update("DELETE FROM event_outbox WHERE event_id = ?", stale);
    }

    @Test
    @DisplayName(
            "automatic: the compensation Lua ran but PostgreSQL stayed COMPENSATING -> finished through the worker, once")
    void finishCompensation() throws Exception {
        Sale s = sale();
        // a worker claims the task, the Lua restores the unit, and the worker dies before PostgreSQL hears of it
        CompensationTasks.Claimed claimed = tasks.claim(
                        CompensationTasks.taskId(s.rejected()), "dies-after-lua", Duration.ofMillis(1))
                .orElseThrow();
        Failpoints.arm(Failpoint.AFTER_COMPENSATION_LUA, "throw*1");
        assertThatThrownBy(() -> compensation.apply(claimed, "dies-after-lua"))
                .isInstanceOf(Failpoints.FailpointException.class);
        assertThat(jdbc.queryForObject(
                        "SELECT status FROM inventory_reservation WHERE reservation_id = ?",
                        String.class,
                        s.rejected()))
                .isEqualTo("COMPENSATING");
        assertThat(redis.sync().hget(s.slot().reservation(s.rejected().toString()), "status"))
                .isEqualTo("COMPENSATED");
        String stockAfterLua = redis.sync().get(s.slot().stock());

        Reconciler.Report r = reconciler.run(s.activityId(), NOW);
        assertThat(r.repairs()).containsEntry("FINISH_COMPENSATION", 1);
        assertThat(jdbc.queryForObject(
                        "SELECT status FROM inventory_reservation WHERE reservation_id = ?",
                        String.class,
                        s.rejected()))
                .isEqualTo("COMPENSATED");
        assertThat(redis.sync().get(s.slot().stock())).as("no second increment").isEqualTo(stockAfterLua);
        assertInvariants(s.activityId(), true);
    }

    @Test
    @DisplayName(
            "automatic: a PAID or CANCELLED order whose projection is behind is re-projected by the standard scripts")
    void projectionOfPaidAndCancelled() throws Exception {
        long activityId = openSale(3);
        UUID paid = placeOrder(activityId, 1, 31), payment = startPayment(31, paid);
        sim.pay(payment, false);
        deliverCallback(payment);
        UUID cancelled = placeOrder(activityId, 1, 32);
        assertThat(client().post("/api/v1/orders/" + cancelled + "/cancel", userToken(32), null)
                        .status())
                .isEqualTo(200);
        awaitSettled(activityId, 2);
        SkuSlot u31 = SkuSlot.forUser(activityId, 1, 1, 31);
        SkuSlot u32 = SkuSlot.forUser(activityId, 1, 1, 32);
        UUID r31 = jdbc.queryForObject("SELECT reservation_id FROM orders WHERE order_id = ?", UUID.class, paid);
        UUID r32 = jdbc.queryForObject("SELECT reservation_id FROM orders WHERE order_id = ?", UUID.class, cancelled);
        // both events were lost on the way: Redis still shows the orders as just created (and the unit still committed)
        redis.sync().hset(u31.reservation(r31.toString()), "status", "ORDER_CREATED");
        redis.sync().hset(u32.reservation(r32.toString()), "status", "ORDER_CREATED");
        redis.sync().del(u32.releaseMarker(r32.toString()));
        redis.sync().hincrby(u32.counter(), "committed", 1);
        redis.sync().decr(u32.stock());

        Reconciler.Report r = reconciler.run(activityId, NOW);
        assertThat(r.repairs()).containsEntry("REBUILD_ORDER_PROJECTION", 2);
        assertThat(redis.sync().hget(u31.reservation(r31.toString()), "status")).isEqualTo("PAID");
        assertThat(redis.sync().hget(u32.reservation(r32.toString()), "status")).isEqualTo("CANCELLED");
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "automatic: a failover lost compensate.lua's write (PostgreSQL COMPENSATED, Redis still RESERVED and "
                    + "holding the unit) -> the script again, once: the unit is sellable, nothing is left open for recalibration")
    void lostCompensationIsReapplied() throws Exception {
        Sale s = sale();
        compensation.runOnce("lost-compensation");
        String rid = s.rejected().toString();
        awaitSettled(s.activityId(), 2);
        assertThat(redis.sync().hget(s.slot().reservation(rid), "status")).isEqualTo("COMPENSATED");
        Map<String, String> counters = redis.sync().hgetall(s.slot().counter());
        String stock = redis.sync().get(s.slot().stock());
        // what the promoted replica has: compensate.lua never happened
        redis.sync().hset(s.slot().reservation(rid), "status", "RESERVED");
        redis.sync().hdel(s.slot().reservation(rid), "compensation_id", "compensated_at_ms");
        redis.sync().persist(s.slot().reservation(rid));
        redis.sync().del(s.slot().compensationMarker(rid));
        redis.sync().decr(s.slot().stock());
        redis.sync().hincrby(s.slot().counter(), "open_reserved", 1);

        Reconciler.Report r = reconciler.run(s.activityId(), NOW);
        assertThat(r.repairs()).containsEntry("REAPPLY_COMPENSATION", 1);
        assertThat(r.anomalies()).doesNotContainKey("COMPENSATED_BUT_REDIS_RESERVED");
        assertThat(redis.sync().hget(s.slot().reservation(rid), "status")).isEqualTo("COMPENSATED");
        assertThat(redis.sync().get(s.slot().stock()))
                .as("the unit is sellable again")
                .isEqualTo(stock);
        Map<String, String> after = redis.sync().hgetall(s.slot().counter());
        assertThat(after.get("added")).as("the unit's return marked again").isNotEqualTo(counters.get("added"));
        after.keySet().removeAll(List.of("added", "refilled_ms"));
        counters.keySet().removeAll(List.of("added", "refilled_ms"));
        assertThat(after).isEqualTo(counters);
        assertThat(reconciler.run(s.activityId(), NOW).repairs()).as("once").doesNotContainKey("REAPPLY_COMPENSATION");
        assertInvariants(s.activityId(), true);
    }

    @Test
    @DisplayName("not automatic: PG PAID vs Redis COMPENSATED, PG COMPENSATED vs Redis ORDER_CREATED, a broken Redis "
            + "invariant -> anomalies with evidence, nothing changed")
    void manualCases() throws Exception {
        Sale s = sale();
        compensation.runOnce("manual-cases");
        UUID payment = startPayment(1, s.created());
        sim.pay(payment, false);
        deliverCallback(payment);
        awaitSettled(s.activityId(), 2);
        redis.sync().hset(s.slot().reservation(s.createdReservation().toString()), "status", "COMPENSATED");
        redis.sync().hset(s.slot().reservation(s.rejected().toString()), "status", "ORDER_CREATED");
        redis.sync().incrby(s.slot().stock(), 5);
        Map<String, String> countersBefore = redis.sync().hgetall(s.slot().counter());

        Reconciler.Report r = reconciler.run(s.activityId(), NOW);
        assertThat(r.repairs()).isEmpty();
        assertThat(r.anomalies())
                .containsKeys(
                        "PAID_BUT_REDIS_COMPENSATED",
                        "COMPENSATED_BUT_REDIS_ORDER_CREATED",
                        "REDIS_INTERNAL_INVARIANT_BROKEN");
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE object_id = ? AND anomaly_type = "
                                + "'PAID_BUT_REDIS_COMPENSATED' AND evidence->>'order_status' = 'PAID'",
                        s.createdReservation().toString()))
                .isOne();
        assertThat(count(
                        "SELECT count(*) FROM manual_hold WHERE object_id = ?",
                        s.createdReservation().toString()))
                .as("the severe conflict is frozen")
                .isOne();
        assertThat(redis.sync().hgetall(s.slot().counter())).isEqualTo(countersBefore);
        assertThat(redis.sync().hget(s.slot().reservation(s.createdReservation().toString()), "status"))
                .isEqualTo("COMPENSATED");

        Reconciler.Report again = reconciler.run(s.activityId(), NOW);
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE activity_id = ? AND status = 'OPEN'",
                        s.activityId()))
                .as("a second run records nothing new")
                .isEqualTo(count(
                        "SELECT count(DISTINCT (anomaly_type, object_id)) FROM reconcile_anomaly WHERE activity_id = ?",
                        s.activityId()));
        assertThat(again.repairs()).isEmpty();
    }

    @Test
    @DisplayName("in-flight data newer than the watermark is never repaired")
    void watermark() throws Exception {
        Sale s = sale();
        unproject(s);
        Reconciler.Report young = reconciler.run(s.activityId(), Duration.ofHours(1));
        assertThat(young.repairs()).isEmpty();
        assertThat(young.skus().getFirst().reservationsChecked()).isZero();
        assertThat(redis.sync().hget(s.slot().reservation(s.createdReservation().toString()), "status"))
                .isEqualTo("RESERVED");
        assertThat(repairs("REBUILD_ORDER_PROJECTION", s.createdReservation())).isZero();

        Reconciler.Report old = reconciler.run(s.activityId(), NOW);
        assertThat(old.repairs()).containsEntry("REBUILD_ORDER_PROJECTION", 1);
        compensation.runOnce("watermark-test");
        awaitSettled(s.activityId(), 2);
        assertInvariants(s.activityId(), true);
    }

    @Test
    @DisplayName("automatic: a stock adjustment that stopped after PostgreSQL gets its Redis half, once")
    void finishStockAdjustment() throws Exception {
        long activityId = openSale(10);
        UUID id = UUID.randomUUID();
        // the operator's command committed PostgreSQL and died before Redis
        assertThat(adjustments.record(activityId, 1, 4, id, "test", "delivery"))
                .isEqualTo(new StockAdjustments.Applied(true));
        assertThat(activities.inventoryView(activityId).getFirst().redis().initial())
                .isEqualTo(10);

        Reconciler.Report r = reconciler.run(null, NOW);
        assertThat(r.repairs()).containsEntry("FINISH_STOCK_ADJUSTMENT", 1);
        assertThat(reconciler.run(null, NOW).repairs()).doesNotContainKey("FINISH_STOCK_ADJUSTMENT");
        var v = activities.inventoryView(activityId).getFirst();
        assertThat(v.redis().initial()).isEqualTo(14);
        assertThat(v.redis().stock()).isEqualTo(14);
        assertThat(v.pg().available()).isEqualTo(14);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("each system's own books: a Redis bucket whose equation does not hold is an anomaly with the books as "
            + "evidence, nothing repaired (PostgreSQL's is a CHECK constraint of sku_inventory)")
    void brokenBooksAreAnomalies() throws Exception {
        long activityId = openSale(4);
        placeOrder(activityId, 1, 1);
        awaitSettled(activityId, 1);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        redis.sync().hincrby(slot.counter(), "open_reserved", 1);
        try {
            Reconciler.Report r = reconciler.run(activityId, NOW);
            assertThat(r.anomalies())
                    .as(r.toString())
                    .containsEntry(AnomalyKind.REDIS_INTERNAL_INVARIANT_BROKEN.name(), 1);
            assertThat(r.repairs()).as(r.toString()).isEmpty();
            assertThat(r.skus()).singleElement().satisfies(sku -> {
                assertThat(sku.pgInvariantDelta()).isZero();
                assertThat(sku.redisInvariantDelta()).isEqualTo(-1);
            });
            assertThat(count(
                            "SELECT count(*) FROM reconcile_anomaly WHERE object_id = ? AND status = 'OPEN' "
                                    + "AND anomaly_type = ? AND evidence->>'redis' LIKE '%openReserved=1%'",
                            activityId + ":1", AnomalyKind.REDIS_INTERNAL_INVARIANT_BROKEN.name()))
                    .isOne();
        } finally {
            redis.sync().hincrby(slot.counter(), "open_reserved", -1);
            jdbc.update("UPDATE reconcile_anomaly SET status = 'RESOLVED' WHERE activity_id = ?", activityId);
        }
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "in the worker's runs a SKU whose reads fail is reported and tried again after a backoff, not on every "
                    + "pass; the sale's other SKU is reconciled on every pass")
    void failingSkuBacksOff() throws Exception {
        long activityId = openSale(3, 3);
        SkuSlot broken = SkuSlot.single(activityId, 1);
        String stock = redis.sync().get(broken.stock());
        double skippedBefore =
                meters.counter("work.slot.skipped", "worker", "reconciler").count();
        // the worker's runs see a sale once the live catalogue has it
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> states(reconciler.run(null, NOW), activityId).size() == 2);
        redis.sync().del(broken.stock());
        redis.sync().hset(broken.stock(), "not", "a number");
        try {
            Map<Long, String> first = states(reconciler.run(null, NOW), activityId);
            assertThat(first.get(1L)).startsWith("FAILED");
            assertThat(first.get(2L)).isEqualTo("OK");

            Map<Long, String> second = states(reconciler.run(null, NOW), activityId);
            assertThat(second).as("the failing SKU waits out its backoff").containsOnlyKeys(2L);
            assertThat(meters.counter("work.slot.skipped", "worker", "reconciler")
                            .count())
                    .isGreaterThan(skippedBefore);
        } finally {
            redis.sync().del(broken.stock());
            redis.sync().set(broken.stock(), stock);
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(states(reconciler.run(null, NOW), activityId))
                        .containsEntry(1L, "OK"));
        assertInvariants(activityId, true);
    }

    @Autowired
    ApplicationContext context;

    @Test
    @DisplayName(
            "a per-SKU gauge holds its value only while runs refresh it: one an operator's run set on an instance "
                    + "that runs no reconciler (an API pod) reads NaN after three intervals (two minutes at least), so no alert holds on it")
    void gaugesGoStaleWithoutRuns() throws Exception {
        long activityId = openSale(2);
        MeterRegistry apiMeters = new SimpleMeterRegistry();
        Instant[] now = {Instant.now()};
        Clock clock = new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now[0];
            }
        };
        Reconciler onApiPod = new Reconciler(
                context.getBean(SaleRegistry.class),
                activities,
                repo,
                context.getBean(Anomalies.class),
                context.getBean(Reservations.class),
                context.getBean(Orders.class),
                apiMeters,
                clock,
                context.getBean(StalledWork.class),
                context.getBean(TransferRule.class),
                context.getBean(InvariantRule.class),
                context.getBean(RecalibrationRule.class),
                context.getBean(ReservationRules.class),
                context.getBean(DriftRule.class),
                context.getBean(OrphanRule.class),
                context.getBean(OutboxLeaseRule.class),
                context.getBean(StockAdjustmentRule.class),
                props);
        onApiPod.run(activityId, NOW);
        Gauge cross = apiMeters
                .get("inventory.cross_system.delta")
                .tag("activity", Long.toString(activityId))
                .gauge();
        assertThat(cross.value()).isZero();

        now[0] = now[0].plusSeconds(100);
        assertThat(cross.value()).as("within two minutes").isZero();
        now[0] = now[0].plus(props.reconcile().interval().multipliedBy(3)).plusSeconds(30);
        assertThat(cross.value())
                .as("three intervals, and two minutes, without a run")
                .isNaN();

        onApiPod.run(activityId, NOW);
        assertThat(cross.value()).as("refreshed by the next run").isZero();
    }

    private static Map<Long, String> states(Reconciler.Report report, long activityId) {
        Map<Long, String> out = new TreeMap<>();
        report.skus().stream()
                .filter(s -> s.activityId() == activityId)
                .forEach(s -> out.put(s.skuId(), s.redisState()));
        return out;
    }

    @Test
    @DisplayName(
            "the periodic reconciler runs on one instance at a time: the lease is held, renewed by its owner, taken over "
                    + "only after it expires")
    void oneRunnerAtATime() {
        try {
            assertThat(repo.takeLease("instance-a", Duration.ofSeconds(30))).isTrue();
            assertThat(repo.takeLease("instance-b", Duration.ofSeconds(30))).isFalse();
            assertThat(repo.takeLease("instance-a", Duration.ofSeconds(30)))
                    .as("renewed by its owner")
                    .isTrue();
            jdbc.update("UPDATE reconcile_lease SET lease_until = clock_timestamp() - interval '1 second'");
            assertThat(repo.takeLease("instance-b", Duration.ofSeconds(30)))
                    .as("taken over after expiry")
                    .isTrue();
            assertThat(repo.takeLease("instance-a", Duration.ofSeconds(30))).isFalse();
        } finally {
            jdbc.update("UPDATE reconcile_lease SET owner = NULL, lease_until = NULL");
        }
    }

    @Test
    @DisplayName("metrics: invariant deltas per SKU, anomalies, repairs, run duration and watermark lag are exported")
    void metrics() throws Exception {
        Sale s = sale();
        unproject(s);
        reconciler.run(s.activityId(), NOW);
        String text = client().getText("/actuator/prometheus");
        assertThat(text)
                .contains(
                        "inventory_pg_invariant_delta{activity=\"" + s.activityId() + "\"",
                        "inventory_redis_invariant_delta{",
                        "inventory_cross_system_delta{",
                        "reconcile_auto_repair_total{",
                        "reconcile_anomaly_age_seconds ",
                        "reconcile_run_duration_seconds_count",
                        "reconcile_watermark_lag_seconds");
    }

    @Test
    @DisplayName(
            "a repair that finds the difference already gone (the pipeline converged after the judgement) is a false "
                    + "positive: done, changes nothing, counted in reconcile_false_positive_total")
    void repairThatFindsNothingToDoIsAFalsePositive() throws Exception {
        double before = meters.counter("reconcile.false.positive", "type", "REBUILD_ORDER_PROJECTION")
                .count();
        long activityId = openSale(2);
        String rid = firstSettled(activityId, 88);
        UUID order = jdbc.queryForObject("SELECT order_id FROM orders WHERE reservation_id = ?::uuid", UUID.class, rid);
        SkuSlot slot = SkuSlot.forUser(activityId, 1, 1, 88);
        Map<String, String> counterBefore = redis.sync().hgetall(slot.counter());
        // judged while the projection was behind; by the time the repair runs, the projection has caught up
        Repairs.Run run = repairs.run(
                "REBUILD_ORDER_PROJECTION",
                "RESERVATION",
                rid,
                1L,
                "ORDER_CREATED",
                Reconciler.OPERATOR,
                "judged behind",
                Map.of(),
                () -> ScriptReply.text(projection.project(slot, rid, order.toString(), HashStatus.ORDER_CREATED), 1));
        assertThat(run).isEqualTo(Repairs.Run.DONE);
        assertThat(meters.counter("reconcile.false.positive", "type", "REBUILD_ORDER_PROJECTION")
                        .count())
                .isEqualTo(before + 1);
        assertThat(redis.sync().hgetall(slot.counter())).as("nothing moved").isEqualTo(counterBefore);
        assertInvariants(activityId, true);
    }
}
