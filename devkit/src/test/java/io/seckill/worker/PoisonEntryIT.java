package io.seckill.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.AdmissionBreaker;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * One bad entry never stops a pass: the send-due scanner and the deadline sweeper postpone and report
 * a poison entry and still finish the healthy reservations of the same slot.
 */
class PoisonEntryIT extends IntegrationTest {

    @Autowired
    AdmissionBreaker breaker;

    @Test
    @DisplayName(
            "deadline sweeper: poison entries ahead of a healthy reservation in the same slot - the healthy one is "
                    + "still tombstoned, the poison ones postponed and reported once past the bound")
    void sweeperPoisonEntry() throws Exception {
        long activityId = openSale(2, new int[] {3});
        SkuSlot slot = SkuSlot.single(activityId, 1);
        String unparseable = "not-a-reservation-id";
        String broken = UUID.randomUUID().toString();
        redis.sync()
                .hset(
                        slot.reservation(broken),
                        Map.of(
                                "reservation_id",
                                broken,
                                "status",
                                "RESERVED",
                                "message_id",
                                UUID.randomUUID().toString(),
                                "request_id",
                                UUID.randomUUID().toString(),
                                "user_id",
                                "abc",
                                "reserved_at_ms",
                                "1",
                                "business_deadline_ms",
                                "2"));
        redis.sync().zadd(slot.deadlines(), 0, unparseable);
        redis.sync().zadd(slot.deadlines(), 0, broken);
        String rid;
        Failpoints.arm(Failpoint.AFTER_INBOX_INSERT, "delay:8000*1");
        try {
            rid = reservationId(601, activityId);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> "ORDER_REJECTED".equals(status(rid)));
        } finally {
            Failpoints.disarmAll();
        }
        assertThat(redis.sync().zscore(slot.deadlines(), rid))
                .as("decided: removed from the index")
                .isNull();
        Awaitility.await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            for (String poison : new String[] {unparseable, broken}) {
                assertThat(count(
                                "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'DEADLINE_SWEEP_STALLED' "
                                        + "AND object_id = ? AND status = 'OPEN'",
                                poison))
                        .as(poison)
                        .isEqualTo(1);
            }
        });
        Double score = redis.sync().zscore(slot.deadlines(), broken);
        assertThat(score).as("still indexed, postponed past now").isNotNull();
        assertThat(score.longValue()).isGreaterThan(System.currentTimeMillis() - 5_000);
        assertThat(client().getText("/actuator/prometheus"))
                .contains("work_stalled_total{type=\"DEADLINE_SWEEP_STALLED\"");
        redis.sync().zrem(slot.deadlines(), unparseable, broken);
        redis.sync().del(slot.reservation(broken));
        awaitSettledWithCompensation(activityId);
    }

    @Test
    @DisplayName(
            "send-due scanner: an unreadable entry and an orphan beside a reservation whose first send was lost - the "
                    + "healthy one is re-sent and becomes an order, the unreadable one is set aside (admission not paused) and reported, the "
                    + "orphan recorded")
    void scannerPoisonEntry() throws Exception {
        long activityId = openSale(3);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        String unreadable = UUID.randomUUID().toString();
        String orphan = UUID.randomUUID().toString();
        redis.sync()
                .hset(
                        slot.reservation(unreadable),
                        Map.of(
                                "reservation_id",
                                unreadable,
                                "status",
                                "RESERVED",
                                "mq_state",
                                "PENDING",
                                "message_id",
                                "garbage",
                                "request_id",
                                "garbage",
                                "user_id",
                                "1",
                                "activity_id",
                                Long.toString(activityId),
                                "sku_id",
                                "1",
                                "reserved_at_ms",
                                "1",
                                "business_deadline_ms",
                                "2"));
        redis.sync().hset(slot.reservation(unreadable), "send_attempts", "0");
        redis.sync().zadd(slot.sendDue(), 0, unreadable);
        redis.sync().zadd(slot.sendDue(), 0, orphan);
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(count(
                            "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'SEND_DUE_UNREADABLE' "
                                    + "AND object_id = ? AND status = 'OPEN'",
                            unreadable))
                    .isEqualTo(1);
            assertThat(count(
                            "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'SEND_DUE_ORPHAN' "
                                    + "AND object_id = ?",
                            orphan))
                    .isEqualTo(1);
        });
        assertThat(redis.sync().zscore(slot.sendDue(), unreadable))
                .as("out of the work")
                .isNull();
        assertThat(redis.sync().zscore(slot.sendAside(), unreadable))
                .as("kept for a person")
                .isNotNull();
        // an unreadable entry (reserved_at_ms = 1) must not look like a backlog that pauses admission for everyone
        Awaitility.await()
                .during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(3))
                .untilAsserted(() -> assertThat(breaker.isOpen()).isFalse());

        Failpoints.arm(Failpoint.AFTER_REDIS_RESERVE, "throw*1"); // admitted in Redis, the first send never happens
        SaleClient.Response lost;
        try {
            lost = reserve(602, activityId, 1);
        } finally {
            Failpoints.disarmAll();
        }
        assertThat(lost.status()).isEqualTo(500);
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() ->
                        count("SELECT count(*) FROM orders WHERE activity_id = ? AND user_id = 602", activityId) == 1);
        redis.sync().del(slot.sendAside(), slot.reservation(unreadable));
        awaitSettled(activityId, 1);
        assertInvariants(activityId, true);
    }

    /** The tombstoned reservation's unit goes back once the compensation worker (driven here) runs. */
    private void awaitSettledWithCompensation(long activityId) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            compensation.runOnce("poison-entry-test");
            assertThat(count(
                            "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> 'COMPENSATED'",
                            activityId))
                    .isZero();
        });
        assertInvariants(activityId, true);
    }

    private String status(String rid) {
        return jdbc.query(
                "SELECT status FROM inventory_reservation WHERE reservation_id = ?",
                rs -> rs.next() ? rs.getString(1) : null,
                UUID.fromString(rid));
    }
}
