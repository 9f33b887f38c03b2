package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Request identity (DESIGN.md, States): a request id is scoped to (activity, SKU, user) in Redis, PostgreSQL and the ids. */
class RequestIdentityIT extends IntegrationTest {

    @Test
    @DisplayName("request id reused across SKUs reaches a terminal state: two attempts, two orders")
    void reusedAcrossSkus() throws Exception {
        long activityId = openSale(5, 5);
        String requestId = UUID.randomUUID().toString();
        SaleClient.Response first = client().reserve(userToken(501), activityId, 1, requestId);
        SaleClient.Response second = client().reserve(userToken(501), activityId, 2, requestId);
        assertThat(first.code()).isEqualTo("QUEUED");
        assertThat(second.code()).isEqualTo("QUEUED");
        assertThat(second.body().get("reservation_id"))
                .isNotEqualTo(first.body().get("reservation_id"));
        assertThat(second.body()).doesNotContainKey("replayed");

        awaitSettled(activityId, 2);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ? AND user_id = 501", activityId))
                .isEqualTo(2);
        assertThat(count(
                        "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status = 'ORDER_CREATED'",
                        activityId))
                .isEqualTo(2);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("request id reused across sales reaches a terminal state: one order in each sale")
    void reusedAcrossSales() throws Exception {
        long a = openSale(3);
        long b = openSale(3);
        String requestId = UUID.randomUUID().toString();
        assertThat(client().reserve(userToken(502), a, 1, requestId).code()).isEqualTo("QUEUED");
        assertThat(client().reserve(userToken(502), b, 1, requestId).code()).isEqualTo("QUEUED");
        awaitSettled(a, 1);
        awaitSettled(b, 1);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id IN (?, ?) AND user_id = 502", a, b))
                .isEqualTo(2);
        assertInvariants(a, true);
        assertInvariants(b, true);
    }

    @Test
    @DisplayName(
            "request id reused across SKUs: a reservation past its deadline is tombstoned and compensated, not stuck")
    void reusedIdPastDeadline() throws Exception {
        long activityId = openSale(2, new int[] {3, 3});
        String requestId = UUID.randomUUID().toString();
        assertThat(client().reserve(userToken(503), activityId, 1, requestId).code())
                .isEqualTo("QUEUED");
        awaitSettled(activityId, 1);
        String rid;
        // the consumer holds the second attempt's message well past the 2 s deadline: the sweeper must decide it
        Failpoints.arm(Failpoint.AFTER_INBOX_INSERT, "delay:8000*1");
        try {
            rid = (String) client().reserve(userToken(503), activityId, 2, requestId)
                    .body()
                    .get("reservation_id");
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                compensation.runOnce("request-identity-test");
                assertThat(status(rid)).isEqualTo("COMPENSATED");
            });
        } finally {
            Failpoints.disarmAll();
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> count(
                                "SELECT count(*) FROM consumer_inbox WHERE reservation_id = ?::uuid AND result_code = 'LATE_REJECTED'",
                                rid)
                        == 1);
        assertThat(redis.sync().get(SkuSlot.single(activityId, 2).stock())).isEqualTo("3");
        assertThat(redis.sync().zcard(SkuSlot.single(activityId, 2).deadlines()))
                .isZero();
        assertInvariants(activityId, true);
    }

    private String status(String rid) {
        return jdbc.query(
                "SELECT status FROM inventory_reservation WHERE reservation_id = ?",
                rs -> rs.next() ? rs.getString(1) : null,
                UUID.fromString(rid));
    }
}
