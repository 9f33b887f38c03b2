package io.seckill.deadline;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A reservation past its deadline whose request PostgreSQL holds under another reservation id. */
class RequestConflictIT extends IntegrationTest {

    @Test
    @DisplayName(
            "after an id-key rotation and a lost hash the same request has a second reservation: past its deadline "
                    + "the sweeper records one anomaly naming both and lets the entry go, instead of failing on the request's "
                    + "unique key on every pass")
    void secondReservationOfADecidedRequest() throws Exception {
        long activityId = openSale(1, new int[] {3});
        SkuSlot slot = SkuSlot.single(activityId, 1);
        // the reservation is taken in Redis and never sent (its message lost for good)
        Failpoints.arm(Failpoint.AFTER_REDIS_RESERVE, "throw*1");
        assertThat(reserve(61, activityId, 1).status()).isEqualTo(500);
        String rid = redis.sync().zrange(slot.sendDue(), 0, -1).getFirst();
        redis.sync().del(slot.sendDue());
        Map<String, String> h = redis.sync().hgetall(slot.reservation(rid));
        // PostgreSQL decided the same request under the reservation id of another key version
        UUID other = UUID.randomUUID();
        jdbc.update(
                "INSERT INTO inventory_reservation (reservation_id, request_id, activity_id, sku_id, user_id, message_id, "
                        + "status, reason_code, version, reserved_at, business_deadline) VALUES (?, ?::uuid, ?, 1, 61, ?, "
                        + "'ORDER_REJECTED', 'SOLD_OUT', 1, now(), now())",
                other,
                h.get("request_id"),
                activityId,
                UUID.randomUUID());
        double failedBefore = counter("deadline.entry.failed");

        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(count(
                                "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'DEADLINE_REQUEST_CONFLICT' "
                                        + "AND object_id = ? AND evidence->>'held_by_reservation' = ?",
                                rid,
                                other.toString()))
                        .isOne());
        Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> redis.sync().zscore(slot.deadlines(), rid) == null);
        assertThat(counter("deadline.entry.failed") - failedBefore)
                .as("no pass failed on the request's unique key")
                .isZero();
        assertThat(jdbc.queryForList(
                        "SELECT reservation_id::text FROM inventory_reservation WHERE activity_id = ?",
                        String.class,
                        activityId))
                .as("no tombstone half written")
                .isEqualTo(List.of(other.toString()));
    }
}
