package io.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.invariants.InvariantChecker;
import io.seckill.reconcile.Reconciler;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.OrderCreateRequested;
import io.seckill.reservation.ReservationIds;
import io.seckill.support.IntegrationTest;
import io.seckill.support.Messages;
import io.seckill.support.Reconciling;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Redis deliberately wrong (warmed with twice the stock, user marks removed): only PostgreSQL can
 * stop the surplus - fault #8 "PG stock exhausted while Redis reserved" on the batched consumer - and
 * the reconciler then finds the supply equation off and sets Redis from PostgreSQL.
 */
class PostgresHoldsTheLineIT extends IntegrationTest {

    @Autowired
    OrderConsumer consumer;

    @Autowired
    Reconciler reconciler;

    @Autowired
    OrderBatchService batches;

    @Autowired
    ReservationIds ids;

    @Test
    @DisplayName(
            "fault #8: Redis warmed 2xN and user marks removed -> exactly N orders, one per user, surplus ORDER_REJECTED with task and event")
    void onlyPostgresStopsTheSurplus() throws Exception {
        double fallbacksBefore = meters.counter("order.batch.fallback").count();
        int n = 20;
        long activityId = openSale(n);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        redis.sync().set(slot.stock(), Integer.toString(2 * n));
        redis.sync().hset(slot.counter(), "initial", Integer.toString(2 * n));

        consumer.suspend();
        List<String> reservations = new ArrayList<>();
        try {
            for (int u = 1; u <= 30; u++) {
                SaleClient.Response r = reserve(u, activityId, 1);
                assertThat(r.status()).isEqualTo(202);
                reservations.add((String) r.body().get("reservation_id"));
            }
            for (int u = 1; u <= 5; u++) {
                redis.sync().del(slot.user(u));
                SaleClient.Response r = reserve(u, activityId, 1);
                assertThat(r.status())
                        .as("second reservation of user " + u + " passes the (wrong) Redis")
                        .isEqualTo(202);
                reservations.add((String) r.body().get("reservation_id"));
            }
            // every message is in the broker before the consumer pulls: batches mix accepted and rejected
            Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> redis.sync().zcard(slot.sendDue()) == 0);
        } finally {
            consumer.resume();
        }

        awaitSettledIgnoringProjection(activityId, reservations.size());
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(n);
        assertThat(count("SELECT count(DISTINCT user_id) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(n);
        long rejected = count(
                "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status = 'ORDER_REJECTED'",
                activityId);
        assertThat(rejected).isEqualTo(reservations.size() - n);
        assertThat(count("""
                SELECT count(*) FROM inventory_reservation r
                WHERE r.activity_id = ? AND r.status = 'ORDER_REJECTED'
                  AND r.reason_code IN ('DB_STOCK_EXHAUSTED', 'DUPLICATE_USER_ORDER')
                  AND (SELECT count(*) FROM compensation_task t WHERE t.reservation_id = r.reservation_id
                       AND t.status = 'PENDING') = 1
                  AND (SELECT count(*) FROM event_outbox e WHERE e.aggregate_id = r.reservation_id
                       AND e.event_type = 'RESERVATION_COMPENSATE_REQUIRED') = 1
                """, activityId)).isEqualTo(rejected);
        assertThat(count(
                        "SELECT count(*) FROM consumer_inbox i JOIN inventory_reservation r USING (reservation_id) "
                                + "WHERE r.activity_id = ? AND i.result_code IN ('REJECTED_SOLD_OUT', 'REJECTED_DUPLICATE_USER')",
                        activityId))
                .isEqualTo(rejected);
        assertThat(meters.counter("order.batch.fallback").count()).isGreaterThan(fallbacksBefore);
        assertInvariants(activityId, false);

        // every surplus unit goes back to Redis exactly once: all reservations terminal, both systems conserved
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            compensation.runOnce("holds-the-line");
            assertThat(count(
                            "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status = 'COMPENSATED'",
                            activityId))
                    .isEqualTo(rejected);
        });
        assertThat(count(
                        "SELECT count(*) FROM compensation_task t JOIN inventory_reservation r USING (reservation_id) "
                                + "WHERE r.activity_id = ? AND t.status = 'APPLIED'",
                        activityId))
                .isEqualTo(rejected);
        awaitSettled(activityId, reservations.size());
        assertThat(redis.sync().get(slot.stock())).isEqualTo(Integer.toString(2 * n - n));
        assertThat(redis.sync().hget(slot.counter(), "open_reserved")).isEqualTo("0");
        assertThat(redis.sync().hget(slot.counter(), "committed")).isEqualTo(Integer.toString(n));
        assertThat(invariants.check(activityId, true))
                .as("Redis still offers the N units it was wrongly warmed with")
                .filteredOn(c -> !c.pass())
                .extracting(InvariantChecker.Check::name)
                .containsExactly("sku 1: Redis initial over every bucket + in transit = PG initial");

        // the reconciler sees the surplus and sets Redis from PostgreSQL
        // (judged once the projection's consumer has acknowledged every event)
        Reconciler.Report report =
                Reconciling.until(reconciler, activityId, r -> r.anomalies().containsKey("SUPPLY_DELTA"));
        assertThat(report.repairs()).containsEntry("REDIS_RECALIBRATION", 1);
        assertThat(redis.sync().get(slot.stock())).isEqualTo("0");
        assertThat(reserve(100, activityId, 1).code()).isEqualTo("SOLD_OUT");
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "a batch larger than the remaining stock rolls back and settles one by one: accepted, sold out and duplicate user in one batch")
    void mixedBatchFallsBackMessageByMessage() throws Exception {
        long activityId = openSale(3);
        List<InboundOrder> batch = new ArrayList<>();
        for (long user : new long[] {501, 502, 501, 503, 504}) {
            batch.add(Messages.inbound(message(activityId, user)));
        }
        Map<InboundOrder, MessageOutcome> out = batches.process(batch);
        assertThat(out).hasSize(5);
        assertThat(out.get(batch.get(0))).isEqualTo(MessageOutcome.CREATED);
        assertThat(out.get(batch.get(1))).isEqualTo(MessageOutcome.CREATED);
        assertThat(out.get(batch.get(2))).isEqualTo(MessageOutcome.REJECTED_DUPLICATE_USER);
        assertThat(out.get(batch.get(3))).isEqualTo(MessageOutcome.CREATED);
        assertThat(out.get(batch.get(4))).isEqualTo(MessageOutcome.REJECTED_SOLD_OUT);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(3);
        assertThat(count(
                        "SELECT count(*) FROM compensation_task t JOIN inventory_reservation r USING (reservation_id) "
                                + "WHERE r.activity_id = ?",
                        activityId))
                .isEqualTo(2);
        assertInvariants(activityId, false);

        // the same batch again: every message is a duplicate, nothing changes
        Map<InboundOrder, MessageOutcome> again = batches.process(batch);
        assertThat(again.values()).containsOnly(MessageOutcome.DUPLICATE);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(3);
    }

    @Test
    @DisplayName("a batch that fits is one transaction: every message created, one aggregated stock decrement")
    void batchThatFits() throws Exception {
        long activityId = openSale(10);
        List<InboundOrder> batch = new ArrayList<>();
        for (long user = 601; user <= 608; user++) {
            batch.add(Messages.inbound(message(activityId, user)));
        }
        long versionBefore = count("SELECT version FROM sku_inventory WHERE activity_id = ?", activityId);
        Map<InboundOrder, MessageOutcome> out = batches.process(batch);
        assertThat(out.values()).containsOnly(MessageOutcome.CREATED);
        assertThat(count("SELECT version FROM sku_inventory WHERE activity_id = ?", activityId))
                .isEqualTo(versionBefore + 1);
        assertThat(count("SELECT available_stock FROM sku_inventory WHERE activity_id = ?", activityId))
                .isEqualTo(2);
        assertInvariants(activityId, false);
    }

    private OrderCreateRequested message(long activityId, long userId) {
        UUID request = UUID.randomUUID();
        UUID rid = ids.reservationId(1, activityId, 1, userId, request);
        long now = System.currentTimeMillis();
        return OrderCreateRequested.of(ids.messageId(1, rid), request, rid, activityId, 1, userId, now, now + 300_000);
    }

    private void awaitSettledIgnoringProjection(long activityId, long expected) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(count(
                                "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> 'RESERVED'",
                                activityId))
                        .isEqualTo(expected));
    }
}
