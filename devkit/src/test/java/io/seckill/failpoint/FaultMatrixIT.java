package io.seckill.failpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Rows of the fault matrix (DESIGN.md §11.1) injected at their failpoints in this JVM - the step that
 * fails is abandoned as a crash would abandon it - then the guarantees are checked after recovery.
 */
class FaultMatrixIT extends IntegrationTest {

    private void assertOneOrder(long activityId, String rid) {
        UUID r = UUID.fromString(rid);
        assertThat(count("SELECT count(*) FROM orders WHERE reservation_id = ?", r))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM consumer_inbox WHERE reservation_id = ?", r))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM inventory_ledger WHERE reservation_id = ?", r))
                .isEqualTo(1);
        assertThat(count("SELECT occupied_stock FROM sku_inventory WHERE activity_id = ?", activityId))
                .isEqualTo(1);
        assertInvariants(activityId, true);
    }

    /** A sale of three units, opened with {@code failpoint} armed to {@code action}. */
    private long saleArmed(Failpoint failpoint, String action) throws Exception {
        long activityId = openSale(3);
        Failpoints.arm(failpoint, action);
        return activityId;
    }

    @Test
    @DisplayName(
            "fault #1: process dies after the Redis reservation, before the send -> the rescan sends the original message_id")
    void crashAfterRedisReserve() throws Exception {
        String requestId = UUID.randomUUID().toString();
        long activityId = saleArmed(Failpoint.AFTER_REDIS_RESERVE, "throw*1");
        SaleClient.Response lost = client().reserve(userToken(21), activityId, 1, requestId);
        assertThat(lost.status()).isEqualTo(500);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        assertThat(redis.sync().zcard(slot.sendDue())).isEqualTo(1);

        awaitSettled(activityId, 1);
        SaleClient.Response retry = client().reserve(userToken(21), activityId, 1, requestId);
        assertThat(retry.status()).isEqualTo(202);
        String rid = (String) retry.body().get("reservation_id");
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> redis.sync().zcard(slot.sendDue()) == 0);
        assertThat(redis.sync().hget(slot.reservation(rid), "mq_state")).isEqualTo("PUBLISHED");
        assertThat(jdbc.queryForObject(
                        "SELECT message_id::text FROM inventory_reservation WHERE reservation_id = ?::uuid",
                        String.class,
                        rid))
                .isEqualTo(redis.sync().hget(slot.reservation(rid), "message_id"));
        assertOneOrder(activityId, rid);
    }

    @Test
    @DisplayName(
            "fault #3: the broker took the message but the mark was lost -> the rescan re-sends the same id, the inbox absorbs it")
    void sentButNotMarked() throws Exception {
        double duplicatesBefore = counter("inbox.duplicate");
        double resendsBefore = counter("reservation.resend");
        long activityId = saleArmed(Failpoint.AFTER_MQ_SEND_BEFORE_REDIS_MARK, "throw*1");
        String rid = reservationId(31, activityId);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> redis.sync().zcard(slot.sendDue()) == 0 && counter("inbox.duplicate") > duplicatesBefore);
        assertThat(counter("reservation.resend")).isGreaterThan(resendsBefore);
        awaitSettled(activityId, 1);
        assertOneOrder(activityId, rid);
    }

    @Test
    @DisplayName(
            "fault #5: consumer dies after the inbox insert, before commit -> rolled back, redelivered, processed once")
    void crashInsideTransaction() throws Exception {
        long activityId = saleArmed(Failpoint.AFTER_INBOX_INSERT, "throw*1");
        String rid = firstSettled(activityId, 51);
        assertThat(Failpoints.armed()).doesNotContainKey(Failpoint.AFTER_INBOX_INSERT.id());
        assertOneOrder(activityId, rid);
    }

    @Test
    @DisplayName("fault #5: consumer dies after the stock decrement and after the order insert -> nothing half-written")
    void crashAfterStockAndOrder() throws Exception {
        long activityId = saleArmed(Failpoint.AFTER_PG_STOCK_DECREMENT, "throw*1");
        Failpoints.arm(Failpoint.AFTER_ORDER_INSERT, "throw*1");
        String rid = firstSettled(activityId, 52);
        assertThat(Failpoints.armed()).isEmpty();
        assertOneOrder(activityId, rid);
    }

    @Test
    @DisplayName(
            "fault #6: PG committed, ACK lost -> redelivered, the inbox answers the original result, no second effect")
    void commitThenCrashBeforeAck() throws Exception {
        double duplicatesBefore = counter("inbox.duplicate");
        long activityId = saleArmed(Failpoint.AFTER_PG_COMMIT_BEFORE_ACK, "throw*1");
        String rid = reservationId(61, activityId);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> counter("inbox.duplicate") > duplicatesBefore);
        awaitSettled(activityId, 1);
        assertOneOrder(activityId, rid);
    }

    @Test
    @DisplayName(
            "fault #7: commit outcome unknown -> resolved by message_id on a new connection, acknowledged, never compensated")
    void commitResponseLost() throws Exception {
        long activityId = saleArmed(Failpoint.DURING_COMMIT_RESPONSE, "lose-response*1");
        double unknownBefore = counter("db.commit.unknown");
        String rid = firstSettled(activityId, 71);
        assertThat(counter("db.commit.unknown")).isEqualTo(unknownBefore + 1);
        assertThat(count("SELECT count(*) FROM compensation_task WHERE reservation_id = ?::uuid", rid))
                .isZero();
        assertOneOrder(activityId, rid);
    }

    @Test
    @DisplayName(
            "fault #5: the consumer's PostgreSQL backend is killed (pg_terminate_backend) mid-transaction -> rolled back, tried again once it answers, once")
    void backendKilledMidTransaction() throws Exception {
        long activityId = saleArmed(Failpoint.AFTER_ORDER_INSERT, "delay:4000*1");
        String rid = reservationId(53, activityId);
        // the order row is written but not committed: find that backend and kill it
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> count("""
                SELECT count(*) FROM pg_stat_activity
                WHERE state = 'idle in transaction' AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()""") > 0);
        long killed = count("""
                SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE state = 'idle in transaction' AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()) k""");
        assertThat(killed).isPositive();
        awaitSettled(activityId, 1);
        assertOneOrder(activityId, rid);
    }

    @Test
    @DisplayName("failpoints can be armed through the admin API only where enabled")
    void adminApi() throws Exception {
        SaleClient.Response r =
                client().post("/api/v1/admin/failpoints/after_order_insert", adminToken(), Map.of("action", "throw*1"));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.code()).isEqualTo("FAILPOINTS_DISABLED");
        assertThat(client().get("/api/v1/admin/failpoints", adminToken()).status())
                .isEqualTo(200);
        assertThat(client().get("/api/v1/admin/failpoints", userToken(1)).status())
                .isEqualTo(401);
    }
}
