package io.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** DESIGN.md §11.2: the business deadline rejects through a PostgreSQL tombstone; a later message cannot resurrect it. */
class DeadlineIT extends IntegrationTest {

    @Test
    @DisplayName(
            "fault #15: the message arrives after the deadline tombstone -> LATE_REJECTED, no order, the unit restored once")
    void messageAfterTombstone() throws Exception {
        long activityId = openSale(2, new int[] {3});
        SkuSlot slot = SkuSlot.single(activityId, 1);
        String rid;
        // the consumer holds the message (inbox claimed, nothing else written) well past the 2 s deadline
        Failpoints.arm(Failpoint.AFTER_INBOX_INSERT, "delay:8000*1");
        try {
            rid = reservationId(151, activityId);
            Awaitility.await().atMost(Duration.ofSeconds(7)).until(() -> "ORDER_REJECTED".equals(status(rid)));
            assertThat(jdbc.queryForObject(
                            "SELECT reason_code FROM inventory_reservation WHERE reservation_id = ?::uuid",
                            String.class,
                            rid))
                    .isEqualTo("BUSINESS_DEADLINE_EXCEEDED");
            Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                compensation.runOnce("deadline-test");
                assertThat(status(rid)).isEqualTo("COMPENSATED");
            });
            assertThat(redis.sync().get(slot.stock())).isEqualTo("3");
        } finally {
            Failpoints.disarmAll();
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> count(
                                "SELECT count(*) FROM consumer_inbox WHERE reservation_id = ?::uuid AND result_code = 'LATE_REJECTED'",
                                rid)
                        == 1);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .isZero();
        assertThat(count("SELECT count(*) FROM compensation_task WHERE reservation_id = ?::uuid", rid))
                .isEqualTo(1);
        assertThat(status(rid)).isEqualTo("COMPENSATED");
        assertThat(redis.sync().get(slot.stock())).isEqualTo("3");
        assertThat(redis.sync().zcard(slot.deadlines())).isZero();
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("DESIGN.md §11.2: a message merely past the SLO (deadline not reached) is processed normally")
    void lateButBeforeDeadline() throws Exception {
        long activityId = openSale(3);
        String rid;
        Failpoints.arm(Failpoint.AFTER_INBOX_INSERT, "delay:4000*1");
        try {
            rid = reservationId(152, activityId);
            Awaitility.await("still held by the consumer")
                    .during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> count("SELECT count(*) FROM inventory_reservation WHERE reservation_id = ?::uuid", rid)
                            == 0);
        } finally {
            Failpoints.disarmAll();
        }
        awaitSettled(activityId, 1);
        assertThat(status(rid)).isEqualTo("ORDER_CREATED");
        assertInvariants(activityId, true);
    }

    private String status(String rid) {
        return jdbc.query(
                "SELECT status FROM inventory_reservation WHERE reservation_id = ?",
                rs -> rs.next() ? rs.getString(1) : null,
                UUID.fromString(rid));
    }
}
