package io.seckill.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.activity.SaleRegistry;
import io.seckill.cli.SaleClient;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.hold.ManualHolds;
import io.seckill.invariants.InvariantChecker;
import io.seckill.projection.OrderProjection;
import io.seckill.redis.LuaScript;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.BucketTransfers;
import io.seckill.state.HashStatus;
import io.seckill.state.ObjectKind;
import io.seckill.support.IntegrationTest;
import io.seckill.support.Reconciling;
import io.seckill.support.SteadyBuyers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A failover can take writes the old master acknowledged and never replicated (fault row 13): a
 * reservation's hash, its buyer's mark and the units it moved are gone from Redis while its order exists
 * in PostgreSQL. Redis then counts units that are not there. The live SKU is recalibrated from
 * PostgreSQL - admission paused until nothing is open, the counters set by a script that refuses while
 * anything could still move them, the sale resumed - and sells exactly its stock afterwards.
 */
class LiveRecalibrationIT extends IntegrationTest {

    private static final LuaScript RECALIBRATE = LuaScript.load("recalibrate");
    private static final LuaScript PAUSE_SLOT = LuaScript.load("pause_slot");
    private static final LuaScript TRANSFER_OUT = LuaScript.load("transfer_out");
    private static final LuaScript PROJECT_ORDER_CREATED = LuaScript.load("project_order_created");

    @Autowired
    Reconciler reconciler;

    @Autowired
    RedisRecalibration recalibration;

    @Autowired
    SaleRegistry registry;

    @Autowired
    OrderProjection projection;

    @Autowired
    BucketTransfers transfers;

    @Autowired
    ManualHolds holds;

    @Test
    @DisplayName(
            "fault #13: a failover lost acknowledged reservations -> the live SKU is recalibrated from PostgreSQL and "
                    + "sells exactly its stock, nobody admitted on a unit that is not there")
    void lostReservationsRecalibrated() throws Exception {
        long activityId = saleWithOrders(10, 6);
        loseReservation(activityId, 1, 1);
        loseReservation(activityId, 1, 2);
        ActivityService.InventoryView lost = view(activityId);
        assertThat(lost.redis().stock())
                .as("Redis counts the two lost units as unsold")
                .isEqualTo(6);
        assertThat(lost.crossSystemDelta()).isEqualTo(-2);

        Reconciler.Report report = reconciler.run(activityId, Duration.ofMillis(1));

        assertThat(report.repairs())
                .as(report.toString())
                .containsEntry("REBUILD_ORDER_PROJECTION", 2)
                .containsEntry("REDIS_RECALIBRATION", 1);
        assertThat(report.skus().getFirst().redisState()).isEqualTo("RECALIBRATED");
        ActivityService.InventoryView after = view(activityId);
        assertThat(after.redis().stock()).isEqualTo(4);
        assertThat(after.redis().committed()).isEqualTo(6);
        assertThat(after.redis().initial()).isEqualTo(10);
        assertThat(redis.sync().hget(SkuSlot.single(activityId, 1).meta(), "status"))
                .as("the sale admits again")
                .isEqualTo("OPEN");
        assertThat(count(
                        "SELECT count(*) FROM audit_log WHERE action = 'REDIS_RECALIBRATION' AND object_id = ?",
                        activityId + ":1"))
                .isOne();
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'REDIS_RESERVATIONS_LOST' "
                                + "AND object_id = ? AND status = 'RESOLVED'",
                        activityId + ":1"))
                .as("recorded, and resolved by the run")
                .isOne();
        assertThat(reserve(1, activityId, 1).code())
                .as("the lost buyer's one attempt is back")
                .isEqualTo("ALREADY_RESERVED");
        assertInvariants(activityId, true);

        Map<String, Integer> answers = new HashMap<>();
        for (long u = 100; u < 120; u++) {
            answers.merge(reserve(u, activityId, 1).code(), 1, Integer::sum);
        }
        assertThat(answers)
                .as("exactly the four units PostgreSQL has left")
                .containsEntry("QUEUED", 4)
                .containsEntry("SOLD_OUT", 16)
                .hasSize(2);
        awaitSettled(activityId, 10);
        assertThat(count(
                        "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> 'ORDER_CREATED'",
                        activityId))
                .as("no buyer queued on a unit that was not there and then rejected")
                .isZero();
        Reconciler.Report quiet = reconciler.run(activityId, Duration.ofMillis(1));
        assertThat(quiet.repairs()).as("nothing left to repair: " + quiet).isEmpty();
        assertThat(quiet.anomalies()).isEmpty();
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "fault #13: reservations lost while buyers keep coming -> recalibrated between their calls; the sale sells "
                    + "exactly its stock, answers 202, 409 or 503 only, nobody queued and then rejected")
    void recalibratedUnderBuyers() throws Exception {
        long activityId = openSale(600);
        List<Long> lostUsers = new ArrayList<>();
        try (SteadyBuyers buyers = SteadyBuyers.start(2, Duration.ofMillis(25), user -> reserve(user, activityId, 1))) {
            buyers.awaitMoreAdmitted(100, Duration.ofSeconds(30));
            // three buyers whose orders Redis has counted lose everything a failover can take
            lostUsers.addAll(jdbc.queryForList(
                    "SELECT user_id FROM orders WHERE activity_id = ? ORDER BY created_at LIMIT 3",
                    Long.class,
                    activityId));
            for (long u : lostUsers) {
                Awaitility.await()
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> "ORDER_CREATED"
                                .equals(redis.sync()
                                        .hget(
                                                SkuSlot.single(activityId, 1).reservation(reservation(activityId, u)),
                                                "status")));
                loseReservation(activityId, 1, u);
            }
            Reconciler.Report report = Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(
                            () -> reconciler.run(activityId, Duration.ofMillis(1)),
                            r -> r.repairs().containsKey("REDIS_RECALIBRATION"));
            assertThat(buyers.codes())
                    .as("the sale was still selling when it was recalibrated: " + report)
                    .doesNotContainKey("409 SOLD_OUT");
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> buyers.codes().containsKey("409 SOLD_OUT"));
            buyers.close();
            assertThat(buyers.statuses().keySet()).as(buyers.codes().toString()).isSubsetOf(202, 409, 503);
            assertThat(buyers.statuses().get(202))
                    .as("admitted after the recalibration: exactly what was left")
                    .isEqualTo(600);
        }
        awaitAllSettled(activityId);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(600);
        assertThat(count(
                        "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> 'ORDER_CREATED'",
                        activityId))
                .as("no buyer queued on a unit that was not there")
                .isZero();
        for (long u : lostUsers) {
            // the SKU is sold out, so a new attempt is answered from memory: the mark itself is what is back
            assertThat(redis.sync().get(SkuSlot.single(activityId, 1).user(u)))
                    .as("buyer " + u + "'s one attempt is back")
                    .isEqualTo(reservation(activityId, u));
        }
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "counters off with every hash in place -> CROSS_SYSTEM_DELTA recorded, the SKU recalibrated, the anomaly resolved")
    void driftRecalibratedAndResolved() throws Exception {
        long activityId = openSale(5, 5);
        placeOrder(activityId, 1, 1);
        placeOrder(activityId, 1, 2);
        placeOrder(activityId, 2, 3);
        awaitSettled(activityId, 3);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        redis.sync().incr(slot.stock());
        redis.sync().hincrby(slot.counter(), "committed", -1);

        // judged once the projection's consumer has acknowledged every event (it may not have, a moment after the
        // orders)
        Reconciler.Report report =
                Reconciling.until(reconciler, activityId, r -> r.anomalies().containsKey("CROSS_SYSTEM_DELTA"));

        assertThat(report.repairs()).as(report.toString()).containsEntry("REDIS_RECALIBRATION", 1);
        assertThat(report.skus()).extracting(Reconciler.SkuReport::redisState).containsExactly("RECALIBRATED", "OK");
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'CROSS_SYSTEM_DELTA' AND object_id = ? "
                                + "AND status = 'RESOLVED' AND evidence->>'resolution' LIKE 'Redis counters recalibrated%'",
                        activityId + ":1"))
                .isOne();
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE activity_id = ? AND status = 'OPEN'", activityId))
                .isZero();
        assertThat(count(
                        "SELECT count(*) FROM audit_log WHERE action = 'REDIS_RECALIBRATION' AND object_id = ?",
                        activityId + ":2"))
                .as("the SKU that agreed is left alone")
                .isZero();
        assertThat(view(activityId).redis().stock()).isEqualTo(3);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "a cancellation whose release has not reached Redis holds the recalibration back; once it lands, every unit "
                    + "is counted once")
    void pendingReleaseHoldsItBack() throws Exception {
        long activityId = saleWithOrders(5, 3);
        UUID cancelled = jdbc.queryForObject(
                "SELECT order_id FROM orders WHERE activity_id = ? AND user_id = 1", UUID.class, activityId);
        SaleClient.Response c = client().post("/api/v1/orders/" + cancelled + "/cancel", userToken(1), null);
        assertThat(c.status()).as(c.body().toString()).isEqualTo(200);
        String rid = reservation(activityId, 1);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> "CANCELLED".equals(redis.sync().hget(slot.reservation(rid), "status")));
        // Redis as it was before the release event arrived, and a unit lost with buyer 2's reservation
        redis.sync().hset(slot.reservation(rid), "status", "ORDER_CREATED");
        redis.sync().del(slot.releaseMarker(rid));
        redis.sync().hincrby(slot.counter(), "committed", 1);
        redis.sync().decr(slot.stock());
        loseReservation(activityId, 1, 2);
        Activity a = registry.load(activityId).orElseThrow();
        Map<String, String> before = counters(slot);

        String refused = recalibration.recalibrateLive(a, a.sku(1), "test", Map.of());

        assertThat(refused).startsWith("REFUSED").contains("release of cancelled reservation " + rid);
        assertThat(counters(slot)).as("nothing written").isEqualTo(before);
        assertThat(redis.sync().hget(slot.meta(), "status"))
                .as("the sale admits again")
                .isEqualTo("OPEN");

        assertThat(ScriptReply.codeOf(projection.project(slot, rid, cancelled.toString(), HashStatus.CANCELLED)))
                .isOne();
        assertThat(recalibration.recalibrateLive(a, a.sku(1), "test", Map.of())).isEqualTo("RECALIBRATED");
        ActivityService.InventoryView after = view(activityId);
        assertThat(after.redis().stock())
                .as("PostgreSQL's available, the released unit once")
                .isEqualTo(after.pg().available())
                .isEqualTo(3);
        assertThat(after.redis().initial()).isEqualTo(after.pg().initial());
        assertThat(recalibration.recalibrateLive(a, a.sku(1), "test", Map.of()))
                .as("a second run finds nothing to do")
                .isEqualTo("UNCHANGED");
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("a unit in two buckets (a transfer whose source failed over before it replicated transfer_out) -> the "
            + "supply equation fails the invariants, SUPPLY_DELTA is recorded, the SKU recalibrated, and it "
            + "sells exactly PostgreSQL's stock, nobody queued and then rejected")
    void unitInTwoBucketsRecalibrated() throws Exception {
        long activityId = openBucketedSale(12, 4);
        for (long u = 1; u <= 4; u++) {
            placeOrder(activityId, 1, u);
        }
        awaitSettled(activityId, 4);
        // the target bucket landed the unit; the source's transfer_out was lost with its old master
        SkuSlot target = new SkuSlot(activityId, 1, 2, 4);
        redis.sync().incr(target.stock());
        redis.sync().hincrby(target.counter(), "initial", 1);
        assertThat(view(activityId).redis().invariantDelta())
                .as("each bucket's own books still add up")
                .isZero();
        assertThat(view(activityId).crossSystemDelta()).isZero();
        assertThat(invariants.check(activityId, true))
                .filteredOn(c -> !c.pass())
                .extracting(InvariantChecker.Check::name)
                .containsExactly("sku 1: Redis initial over every bucket + in transit = PG initial");

        Reconciler.Report report =
                Reconciling.until(reconciler, activityId, r -> r.anomalies().containsKey("SUPPLY_DELTA"));

        assertThat(report.repairs()).as(report.toString()).containsEntry("REDIS_RECALIBRATION", 1);
        assertThat(view(activityId).supplyDelta()).isZero();
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'SUPPLY_DELTA' AND object_id = ? "
                                + "AND status = 'RESOLVED'",
                        activityId + ":1"))
                .isOne();
        assertInvariants(activityId, true);
        Map<String, Integer> answers = new HashMap<>();
        for (long u = 100; u < 140; u++) {
            answers.merge(reserve(u, activityId, 1).code(), 1, Integer::sum);
        }
        assertThat(answers.get("QUEUED"))
                .as("the eight units PostgreSQL has left, not nine: " + answers)
                .isEqualTo(8);
        awaitSettled(activityId, 12);
        assertThat(count(
                        "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> 'ORDER_CREATED'",
                        activityId))
                .isZero();
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "fault #13: a failover lost a reservation whose order message is still unconsumed on the broker -> the "
                    + "live recalibration waits for that message instead of counting its unit as available; once it is "
                    + "consumed Redis is set from PostgreSQL, and the SKU sells exactly what is left")
    void lostReservationInFlightIsWaitedFor() throws Exception {
        long activityId = saleWithOrders(6, 2);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        // buyer 10's order is held up in the consumer (its message stays unconsumed) when a failover loses its
        // reservation from Redis (hash, mark, the unit it took) and an order's
        loseWhileInConsumer(activityId, slot, "delay:9000*1");

        Reconciler.Report first = reconciler.run(activityId, Duration.ofMillis(1));

        assertThat(first.skus().getFirst().redisState())
                .as("not recalibrated from a PostgreSQL that has not seen buyer 10's order: " + first)
                .isEqualTo("DRAIN_TIMEOUT");
        assertThat(redis.sync().hget(slot.meta(), "status")).isEqualTo("OPEN");
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() ->
                        count("SELECT count(*) FROM orders WHERE activity_id = ? AND user_id = 10", activityId) == 1);
        Reconciler.Report later = Reconciling.until(
                reconciler,
                activityId,
                r -> "RECALIBRATED".equals(r.skus().getFirst().redisState()));
        sellsWhatIsLeft(activityId, 10, later.toString());
    }

    @Test
    @DisplayName(
            "fault #13: a failover lost a reservation whose order message a failed consume sent back to the broker's "
                    + "delay queue -> the live recalibration waits for its redelivery too; once it is consumed Redis "
                    + "is set from PostgreSQL, and the SKU sells exactly what is left")
    void lostReservationInTheDelayQueueIsWaitedFor() throws Exception {
        long activityId = saleWithOrders(6, 2);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        // buyer 10's order fails in the consumer twice - each time its message goes back to the broker's delay queue -
        // when a failover loses its reservation (hash, mark, the unit it took) and an order's
        loseWhileInConsumer(activityId, slot, "throw*2");

        Reconciler.Report first = reconciler.run(activityId, Duration.ofMillis(1));

        String state = first.skus().getFirst().redisState();
        assertThat(state).as(first.toString()).isIn("RECALIBRATED", "DRAIN_TIMEOUT");
        if (state.equals("RECALIBRATED")) {
            assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ? AND user_id = 10", activityId))
                    .as("recalibrated only once buyer 10's redelivered message had made its order")
                    .isOne();
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() ->
                        count("SELECT count(*) FROM orders WHERE activity_id = ? AND user_id = 10", activityId) == 1);
        Reconciling.until(reconciler, activityId, r -> view(activityId).redis().stock() == 3);
        sellsWhatIsLeft(activityId, 6, "");
    }

    @Test
    @DisplayName(
            "a reservation under manual review stays open through a live recalibration: the drift is repaired without "
                    + "waiting for it, and its unit comes back once when the operator gives it back")
    void reservationUnderReviewIsNotWaitedFor() throws Exception {
        long activityId = saleWithOrders(6, 2);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        // a failover lost buyer 1's mark: their second attempt is admitted by Redis and refused by PostgreSQL
        redis.sync().del(slot.user(1));
        SaleClient.Response again = reserve(1, activityId, 1);
        assertThat(again.status()).as(again.body().toString()).isEqualTo(202);
        String rejected = (String) again.body().get("reservation_id");
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> "ORDER_REJECTED"
                        .equals(jdbc.queryForObject(
                                "SELECT status FROM inventory_reservation WHERE reservation_id = ?::uuid",
                                String.class,
                                rejected)));
        SaleClient.Response frozen = client().post(
                        "/api/v1/admin/freeze/" + rejected,
                        adminToken(),
                        Map.of("reason", "incident 7: a second attempt of buyer 1"));
        assertThat(frozen.status()).as(frozen.body().toString()).isEqualTo(200);
        assertThat(redis.sync().hget(slot.counter(), "open_reserved")).isEqualTo("1");
        // and a failover that lost an order's projection
        redis.sync().incr(slot.stock());
        redis.sync().hincrby(slot.counter(), "committed", -1);

        Reconciler.Report report =
                Reconciling.until(reconciler, activityId, r -> r.anomalies().containsKey("CROSS_SYSTEM_DELTA"));

        assertThat(report.repairs()).as(report.toString()).containsEntry("REDIS_RECALIBRATION", 1);
        assertThat(report.skus().getFirst().redisState()).isEqualTo("RECALIBRATED");
        assertThat(Duration.ofMillis(report.millis()))
                .as("the run that recalibrated did not wait for the frozen reservation")
                .isLessThan(props.reconcile().recalibrationDrain());
        assertThat(redis.sync().get(slot.stock()))
                .as("PostgreSQL's 4 available, less the unit the frozen reservation holds")
                .isEqualTo("3");
        assertThat(redis.sync().hgetall(slot.counter()))
                .containsEntry("initial", "6")
                .containsEntry("committed", "2")
                .containsEntry("open_reserved", "1");
        assertThat(redis.sync().hget(slot.meta(), "status")).isEqualTo("OPEN");
        assertThat(count(
                        "SELECT count(*) FROM audit_log WHERE action = 'REDIS_RECALIBRATION' AND object_id = ? "
                                + "AND after->>'open_under_manual_review' = '1'",
                        activityId + ":1"))
                .isOne();

        SaleClient.Response given = client().post(
                        "/api/v1/admin/repair/" + rejected,
                        adminToken(),
                        Map.of("action", "compensate", "reason", "incident 7: PostgreSQL refused it, give it back"));
        assertThat(given.status()).as(given.body().toString()).isEqualTo(200);
        assertThat(redis.sync().get(slot.stock())).isEqualTo("4");
        assertThat(redis.sync().hget(slot.counter(), "open_reserved")).isEqualTo("0");
        assertThat(reconciler.run(activityId, Duration.ofMillis(1)).repairs())
                .as("nothing left to recalibrate")
                .doesNotContainKey("REDIS_RECALIBRATION");
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "a recalibration that could not run stays due: REDIS_RESERVATIONS_LOST is open until a later run recalibrates")
    void deferredRecalibrationStaysDue() throws Exception {
        long activityId = saleWithOrders(6, 3);
        loseReservation(activityId, 1, 2);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        // a reservation that does not settle within the drain
        redis.sync().decr(slot.stock());
        redis.sync().hincrby(slot.counter(), "open_reserved", 1);

        Reconciler.Report first = reconciler.run(activityId, Duration.ofMillis(1));

        assertThat(first.skus().getFirst().redisState()).as(first.toString()).isEqualTo("DRAIN_TIMEOUT");
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'REDIS_RESERVATIONS_LOST' "
                                + "AND object_id = ? AND status = 'OPEN'",
                        activityId + ":1"))
                .isOne();
        assertThat(redis.sync().hget(slot.meta(), "status")).isEqualTo("OPEN");
        redis.sync().incr(slot.stock());
        redis.sync().hincrby(slot.counter(), "open_reserved", -1);

        Reconciler.Report second = reconciler.run(activityId, Duration.ofMillis(1));

        assertThat(second.repairs())
                .as(second.toString())
                .containsEntry("REDIS_RECALIBRATION", 1)
                .doesNotContainKey("REBUILD_ORDER_PROJECTION");
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE activity_id = ? AND status = 'OPEN'", activityId))
                .isZero();
        assertThat(view(activityId).redis().stock()).isEqualTo(3);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "a live recalibration that cannot drain in time resumes the sale; buyers meanwhile are asked to retry (503); "
                    + "a slot a dead reconciler left paused admits again on the next run")
    void pausesAreBoundedAndHealed() throws Exception {
        long activityId = saleWithOrders(5, 1);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        Activity a = registry.load(activityId).orElseThrow();
        // a reservation that stays open (its stock and open count, as reserve.lua moves them)
        redis.sync().decr(slot.stock());
        redis.sync().hincrby(slot.counter(), "open_reserved", 1);
        Map<String, String> before = counters(slot);
        long t0 = System.nanoTime();

        assertThat(recalibration.recalibrateLive(a, a.sku(1), "test", Map.of())).isEqualTo("DRAIN_TIMEOUT");

        assertThat(Duration.ofNanos(System.nanoTime() - t0))
                .isGreaterThanOrEqualTo(props.reconcile().recalibrationDrain());
        assertThat(counters(slot)).isEqualTo(before);
        assertThat(redis.sync().hget(slot.meta(), "status")).isEqualTo("OPEN");
        redis.sync().incr(slot.stock());
        redis.sync().hincrby(slot.counter(), "open_reserved", -1);

        redis.sync().hset(slot.meta(), "status", "PAUSED");
        SaleClient.Response paused = reserve(2, activityId, 1);
        assertThat(paused.status()).as(paused.body().toString()).isEqualTo(503);
        assertThat(paused.code()).isEqualTo("ADMISSION_PAUSED");
        Reconciler.Report report = reconciler.run(activityId, Duration.ofMillis(1));
        assertThat(report.repairs()).as(report.toString()).containsEntry("RESUME_PAUSED_SLOT", 1);
        assertThat(redis.sync().hget(slot.meta(), "status")).isEqualTo("OPEN");
        assertThat(reserve(2, activityId, 1).code()).isEqualTo("QUEUED");
        awaitSettled(activityId, 2);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "recalibrate.lua writes only when the slot admits nobody, nothing is open and the counters are as read; "
                    + "pause_slot.lua pauses an open slot and resumes only a paused one")
    void scriptGuards() {
        SkuSlot slot = SkuSlot.single(newActivityId(), 1);
        String[] keys = {slot.stock(), slot.counter(), slot.meta()};
        redis.sync().set(slot.stock(), "7");
        redis.sync().hset(slot.counter(), Map.of("initial", "10", "open_reserved", "0", "committed", "3"));
        redis.sync().hset(slot.meta(), Map.of("status", "OPEN", "start_ms", "1", "end_ms", "2"));

        assertThat(RECALIBRATE.run(redis, keys, "5", "5", "7", "10", "3")).containsExactly(-1L, "ADMITTING");
        assertThat(PAUSE_SLOT.run(redis, new String[] {slot.meta()}, "PAUSE", "", "1", "2"))
                .containsExactly(1L, "PAUSED");
        redis.sync().hset(slot.counter(), "open_reserved", "1");
        assertThat(RECALIBRATE.run(redis, keys, "5", "5", "7", "10", "3")).containsExactly(-2L, "OPEN_RESERVED", 1L);
        assertThat(RECALIBRATE.run(redis, keys, "5", "5", "7", "10", "3", "LOST"))
                .as("LOST, but the slot has its counters")
                .containsExactly(-2L, "OPEN_RESERVED", 1L);
        redis.sync().hset(slot.counter(), "open_reserved", "0");
        assertThat(RECALIBRATE.run(redis, keys, "5", "5", "6", "10", "3"))
                .as("stock moved since it was read")
                .containsExactly(-3L, "CHANGED");
        assertThat(RECALIBRATE.run(redis, keys, "5", "5", "7", "10", "2"))
                .as("committed moved since it was read")
                .containsExactly(-3L, "CHANGED");
        assertThat(redis.sync().get(slot.stock())).isEqualTo("7");

        assertThat(RECALIBRATE.run(redis, keys, "5", "5", "7", "10", "3")).containsExactly(1L, "RECALIBRATED");
        assertThat(redis.sync().get(slot.stock())).isEqualTo("5");
        assertThat(redis.sync().hgetall(slot.counter()))
                .containsEntry("initial", "10")
                .containsEntry("committed", "5")
                .containsEntry("open_reserved", "0");
        assertThat(redis.sync().hget(slot.meta(), "status"))
                .as("resuming is the caller's step")
                .isEqualTo("PAUSED");

        assertThat(PAUSE_SLOT.run(redis, new String[] {slot.meta()}, "RESUME", "OPEN", "1", "2"))
                .containsExactly(1L, "RESUMED");
        assertThat(redis.sync().hget(slot.meta(), "status")).isEqualTo("OPEN");
        redis.sync().hset(slot.meta(), "status", "CLOSED");
        assertThat(PAUSE_SLOT.run(redis, new String[] {slot.meta()}, "PAUSE", "", "1", "2"))
                .as("admits nobody already")
                .containsExactly(0L, "CLOSED");
        assertThat(PAUSE_SLOT.run(redis, new String[] {slot.meta()}, "RESUME", "OPEN", "1", "2"))
                .as("an operator's close is not undone")
                .containsExactly(0L, "CLOSED");
        assertThat(redis.sync().hget(slot.meta(), "status")).isEqualTo("CLOSED");

        redis.sync().hset(slot.counter(), "open_reserved", "1");
        assertThat(RECALIBRATE.run(redis, keys, "4", "5", "5", "10", "5", "", "2"))
                .as("one open where two are under review")
                .containsExactly(-2L, "OPEN_RESERVED", 1L);
        assertThat(RECALIBRATE.run(redis, keys, "4", "5", "5", "10", "5", "", "1"))
                .containsExactly(1L, "RECALIBRATED");
        assertThat(redis.sync().hgetall(slot.counter()))
                .as("the reservation under review keeps its unit open")
                .containsEntry("initial", "10")
                .containsEntry("committed", "5")
                .containsEntry("open_reserved", "1");
        deleteKeys(slot);
    }

    @Test
    @DisplayName(
            "a bucketed SKU: reservations lost in two buckets and a unit in transit -> each bucket counts its own buyers' "
                    + "orders, the stock PostgreSQL has left is shared out, the unit in transit still lands once")
    void bucketsRecalibrated() throws Exception {
        long activityId = openBucketedSale(40, 4);
        List<Long> users = new ArrayList<>();
        for (long u = 1; users.size() < 8; u++) {
            placeOrder(activityId, 1, u);
            users.add(u);
        }
        awaitSettled(activityId, 8);
        long lostA = users.get(0);
        long lostB = users.stream()
                .filter(u -> bucket(activityId, u) != bucket(activityId, lostA))
                .findFirst()
                .orElseThrow();
        loseReservation(activityId, 4, lostA);
        loseReservation(activityId, 4, lostB);
        Activity a = registry.load(activityId).orElseThrow();
        SkuSlot source = new SkuSlot(activityId, 1, 0, 4);
        assertThat(ScriptReply.codeOf(TRANSFER_OUT.run(
                        redis,
                        new String[] {source.stock(), source.counter(), source.meta(), source.transfers()},
                        UUID.randomUUID().toString(),
                        "1")))
                .isOne();

        assertThat(recalibration.recalibrateLive(a, a.sku(1), "test", Map.of())).isEqualTo("RECALIBRATED");

        int[] own = new int[4];
        for (long u : users) {
            own[bucket(activityId, u)]++;
        }
        ActivityService.InventoryView v = view(activityId);
        for (ActivityService.BucketCounters b : activities.bucketCounters(v.pg())) {
            assertThat(b.committed()).as("bucket " + b.bucket()).isEqualTo(own[b.bucket()]);
            assertThat(b.initial()).isEqualTo(b.stock() + b.committed());
        }
        assertThat(v.redis().inTransit())
                .as("the unit in transit is not in any bucket's stock yet")
                .isOne();
        assertThat(v.redis().stock() + v.redis().inTransit())
                .isEqualTo(v.pg().available())
                .isEqualTo(32);
        for (long u : List.of(lostA, lostB)) {
            assertThat(redis.sync()
                            .hget(
                                    SkuSlot.forUser(activityId, 1, 4, u).reservation(reservation(activityId, u)),
                                    "status"))
                    .as("lost hash of buyer " + u + " restored")
                    .isEqualTo("ORDER_CREATED");
        }
        assertThat(v.crossSystemDelta()).isZero();
        assertThat(transfers.finishStale(a, a.sku(1), Duration.ZERO)).isOne();
        assertThat(view(activityId).redis().stock()).isEqualTo(32);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("fault #13: keys lost while two reservation hashes outlived them - one projected since onto a counter "
            + "re-created at open_reserved -1, one still RESERVED for its order -> recalibrated (not while that one is "
            + "under a hold), each order counted once, a late projection moves nothing")
    void keysLostWithStragglers() throws Exception {
        long activityId = saleWithOrders(10, 4);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        Map<String, String> projected = redis.sync().hgetall(slot.reservation(reservation(activityId, 1)));
        Map<String, String> behind = redis.sync().hgetall(slot.reservation(reservation(activityId, 2)));
        assertThat(deleteKeys(slot)).isPositive();
        // both hashes as they were before their ORDER_CREATED projections, which had not run when the keys went
        for (Map<String, String> h : List.of(projected, behind)) {
            Map<String, String> reserved = new HashMap<>(h);
            reserved.put("status", "RESERVED");
            reserved.remove("order_id");
            redis.sync().hset(slot.reservation(h.get("reservation_id")), reserved);
        }
        assertThat(PROJECT_ORDER_CREATED.run(
                        redis,
                        new String[] {slot.reservation(projected.get("reservation_id")), slot.counter()},
                        projected.get("reservation_id"),
                        projected.get("order_id")))
                .containsExactly(1L, "PROJECTED");
        assertThat(redis.sync().hgetall(slot.counter()))
                .as("moves against nothing")
                .containsEntry("open_reserved", "-1")
                .doesNotContainKey("initial");

        // a hold on the reservation still behind: nobody writes it, so the counts are not rewritten around it
        String behindId = behind.get("reservation_id");
        assertThat(holds.hold(ObjectKind.RESERVATION, behindId, "ORDER_CREATED", "under investigation", "test"))
                .isTrue();
        // the runs wait until the broker says every order message was consumed (its offsets are committed every few s)
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> {
                    assertThat(reconciler
                                    .run(activityId, Duration.ofMillis(1))
                                    .skus()
                                    .getFirst()
                                    .redisState())
                            .isEqualTo("PAUSED_DRAINING");
                    return count(
                                    "SELECT count(*) FROM repair_task WHERE rule_name = 'REDIS_RECALIBRATION' AND object_id = ? "
                                            + "AND result LIKE '%under a hold%'",
                                    activityId + ":1")
                            > 0;
                });
        assertThat(redis.sync().hget(slot.reservation(behindId), "status"))
                .as("the held hash untouched")
                .isEqualTo("RESERVED");
        assertThat(holds.release(ObjectKind.RESERVATION, behindId)).isPresent();
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> "RECALIBRATED"
                        .equals(reconciler
                                .run(activityId, Duration.ofMillis(1))
                                .skus()
                                .getFirst()
                                .redisState()));
        assertThat(counters(slot))
                .containsEntry("stock", "6")
                .containsEntry("initial", "10")
                .containsEntry("open_reserved", "0")
                .containsEntry("committed", "4");
        for (long u = 1; u <= 4; u++) {
            assertThat(redis.sync().hget(slot.reservation(reservation(activityId, u)), "status"))
                    .as("buyer " + u)
                    .isEqualTo("ORDER_CREATED");
        }
        assertThat(PROJECT_ORDER_CREATED.run(
                        redis,
                        new String[] {slot.reservation(behind.get("reservation_id")), slot.counter()},
                        behind.get("reservation_id"),
                        behind.get("order_id")))
                .as("the late projection")
                .containsExactly(2L, "ALREADY_PROJECTED");
        reconciler.run(activityId, Duration.ofMillis(1));
        assertThat(counters(slot))
                .containsEntry("stock", "6")
                .containsEntry("open_reserved", "0")
                .containsEntry("committed", "4");
        assertThat(view(activityId).crossSystemDelta()).isZero();
        assertThat(reserveAfterHold(5, activityId, 1).status())
                .as("the sale admits again, once the recalibrated units' hold ended")
                .isEqualTo(202);
        awaitSettled(activityId, 5);
        assertInvariants(activityId, true);
    }

    /** A sale of one SKU with {@code stock} units and the orders of buyers 1..{@code orders}, settled. */
    private long saleWithOrders(int stock, int orders) throws Exception {
        long activityId = openSale(stock);
        for (long u = 1; u <= orders; u++) {
            placeOrder(activityId, 1, u);
        }
        awaitSettled(activityId, orders);
        return activityId;
    }

    /**
     * After buyer 10's order landed and Redis was set from PostgreSQL: Redis holds PostgreSQL's three units, and
     * {@code buyers} new buyers are sold exactly those - nobody queued on a unit that was not there.
     */
    private void sellsWhatIsLeft(long activityId, int buyers, String context) throws Exception {
        ActivityService.InventoryView v = view(activityId);
        assertThat(v.redis().stock())
                .as("PostgreSQL's three, buyer 10's unit taken: " + context)
                .isEqualTo(v.pg().available())
                .isEqualTo(3);
        Map<String, Integer> answers = new HashMap<>();
        for (long u = 100; u < 100 + buyers; u++) {
            answers.merge(reserve(u, activityId, 1).code(), 1, Integer::sum);
        }
        assertThat(answers).containsEntry("QUEUED", 3).containsEntry("SOLD_OUT", buyers - 3);
        awaitSettled(activityId, 6);
        assertThat(count(
                        "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> 'ORDER_CREATED'",
                        activityId))
                .as("nobody queued on a unit that was not there")
                .isZero();
        assertInvariants(activityId, true);
    }

    /**
     * Buyer 10 reserves while the order consumer is armed with {@code action} at the inbox insert; once it fired,
     * Redis loses buyer 10's reservation (hash, mark, deadline entry, the unit it took) and buyer 1's.
     */
    private void loseWhileInConsumer(long activityId, SkuSlot slot, String action) throws Exception {
        Failpoints.arm(Failpoint.AFTER_INBOX_INSERT, action);
        SaleClient.Response inFlight = reserve(10, activityId, 1);
        assertThat(inFlight.status()).as(inFlight.body().toString()).isEqualTo(202);
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> Failpoints.fired().getOrDefault(Failpoint.AFTER_INBOX_INSERT.id(), 0L) > 0);
        String rid = (String) inFlight.body().get("reservation_id");
        redis.sync().del(slot.reservation(rid), slot.user(10));
        redis.sync().zrem(slot.deadlines(), rid);
        redis.sync().incr(slot.stock());
        redis.sync().hincrby(slot.counter(), "open_reserved", -1);
        loseReservation(activityId, 1, 1);
    }

    /** Redis as a replica that never saw this buyer's reservation: its hash, mark and request map and the units it moved. */
    private void loseReservation(long activityId, int buckets, long userId) {
        Map<String, Object> row = jdbc.queryForMap(
                "SELECT reservation_id::text AS rid, request_id::text AS req "
                        + "FROM inventory_reservation WHERE activity_id = ? AND user_id = ?",
                activityId,
                userId);
        SkuSlot slot = SkuSlot.forUser(activityId, 1, buckets, userId);
        assertThat(redis.sync()
                        .del(slot.reservation((String) row.get("rid")), slot.user(userId), slot.request(userId, (String)
                                row.get("req"))))
                .isEqualTo(3);
        redis.sync().incr(slot.stock());
        redis.sync().hincrby(slot.counter(), "committed", -1);
    }

    private String reservation(long activityId, long userId) {
        return jdbc.queryForObject(
                "SELECT reservation_id::text FROM inventory_reservation WHERE activity_id = ? AND user_id = ?",
                String.class,
                activityId,
                userId);
    }

    private static int bucket(long activityId, long userId) {
        return SkuSlot.forUser(activityId, 1, 4, userId).bucket();
    }

    private Map<String, String> counters(SkuSlot slot) {
        Map<String, String> c = new HashMap<>(redis.sync().hgetall(slot.counter()));
        c.put("stock", redis.sync().get(slot.stock()));
        return c;
    }

    private ActivityService.InventoryView view(long activityId) {
        return activities.inventoryView(activityId).getFirst();
    }
}
