package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.api.Tokens;
import io.seckill.cli.SaleClient;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Every refusal answers its documented status and code, names the field, and writes nothing. */
class BadInputIT extends IntegrationTest {

    private static final String PATH = "/api/v1/activities/%d/skus/%d/reservations";

    @Test
    @DisplayName(
            "bad input: missing/malformed request id, unknown activity or sku, not open, bad token -> 4xx, nothing written")
    void refusalsWriteNothing() throws Exception {
        long activityId = openSale(1);
        String path = PATH.formatted(activityId, 1);
        String token = userToken(5);

        assertProblem(client().post(path, token, null), 400, "INVALID_REQUEST", "body");
        assertProblem(client().post(path, token, Map.of()), 400, "INVALID_REQUEST", "request_id");
        assertProblem(
                client().post(path, token, Map.of("request_id", "not-a-uuid")), 400, "INVALID_REQUEST", "request_id");
        assertProblem(client().post(path, token, Map.of("request_id", 12)), 400, "INVALID_REQUEST", "request_id");
        assertProblem(
                client().post(
                                "/api/v1/activities/abc/skus/1/reservations",
                                token,
                                Map.of("request_id", UUID.randomUUID().toString())),
                400,
                "INVALID_REQUEST",
                "activity_id");
        assertProblem(
                client().reserve(token, newActivityId(), 1, UUID.randomUUID().toString()),
                404,
                "ACTIVITY_NOT_FOUND",
                "activity_id");
        assertProblem(
                client().reserve(token, activityId, 99, UUID.randomUUID().toString()),
                404,
                "ACTIVITY_NOT_FOUND",
                "sku_id");
        assertProblem(client().reserve(null, activityId, 1, UUID.randomUUID().toString()), 401, "UNAUTHORIZED", null);
        String forged = Tokens.user("another-secret-that-is-long-enough-0123456789", 5, Duration.ofMinutes(5));
        assertProblem(client().reserve(forged, activityId, 1, UUID.randomUUID().toString()), 401, "UNAUTHORIZED", null);
        assertProblem(
                client().reserve("garbage", activityId, 1, UUID.randomUUID().toString()), 401, "UNAUTHORIZED", null);
        String adminAsUser = adminToken();
        assertProblem(
                client().reserve(adminAsUser, activityId, 1, UUID.randomUUID().toString()), 401, "UNAUTHORIZED", null);
        assertProblem(
                client().post("/api/v1/admin/activities/" + activityId + "/close", token, null),
                401,
                "UNAUTHORIZED",
                null);
        // the token is checked before the body is read: a malformed body with no token is 401, not 400
        assertProblem(client().post(path, null, "{not json"), 401, "UNAUTHORIZED", null);
        assertProblem(
                client().post("/api/v1/admin/activities", token, Map.of("nonsense", true)), 401, "UNAUTHORIZED", null);

        assertNothingWritten(activityId, 1);

        // sold out and already reserved: the one unit goes to user 6, user 6 again and user 7 are refused
        assertThat(reserve(6, activityId, 1).status()).isEqualTo(202);
        SaleClient.Response again = reserve(6, activityId, 1);
        assertProblem(again, 409, "ALREADY_RESERVED", null);
        assertThat(again.body()).containsKey("reservation_id");
        assertProblem(reserve(7, activityId, 1), 409, "SOLD_OUT", null);
        awaitSettled(activityId, 1);
        assertThat(count("SELECT count(*) FROM inventory_reservation WHERE activity_id = ?", activityId))
                .isEqualTo(1);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("a sale that is not open refuses reservations with 409 ACTIVITY_NOT_OPEN; opening needs warm Redis")
    void notOpen() throws Exception {
        long activityId = newActivityId();
        createSale(activityId, 3);
        assertProblem(reserve(1, activityId, 1), 409, "ACTIVITY_NOT_OPEN", null);
        assertProblem(
                client().post("/api/v1/admin/activities/" + activityId + "/open", adminToken(), null),
                409,
                "REDIS_NOT_WARMED",
                "sku_id");
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/warm", adminToken(), null)
                        .status())
                .isEqualTo(200);
        assertProblem(reserve(1, activityId, 1), 409, "ACTIVITY_NOT_OPEN", null);
        redis.sync().set(SkuSlot.single(activityId, 1).stock(), "4");
        assertProblem(
                client().post("/api/v1/admin/activities/" + activityId + "/open", adminToken(), null),
                409,
                "REDIS_NOT_WARMED",
                "sku_id");
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/warm", adminToken(), null)
                        .status())
                .isEqualTo(200);
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/open", adminToken(), null)
                        .status())
                .isEqualTo(200);
        assertProblem(
                client().post("/api/v1/admin/activities/" + activityId + "/warm", adminToken(), null),
                409,
                "ACTIVITY_NOT_WARMABLE",
                null);
        assertThat(reserve(1, activityId, 1).status()).isEqualTo(202);
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/close", adminToken(), null)
                        .status())
                .isEqualTo(200);
        assertProblem(reserve(2, activityId, 1), 409, "ACTIVITY_NOT_OPEN", null);
        awaitSettled(activityId, 1);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("admin create validates every field and names it")
    void createValidation() throws Exception {
        long id = newActivityId();
        SaleClient.Response r = client().post(
                        "/api/v1/admin/activities",
                        adminToken(),
                        Map.of(
                                "activity_id",
                                id,
                                "name",
                                "x",
                                "starts_at",
                                "2030-01-01T00:00:00Z",
                                "ends_at",
                                "2030-01-01T01:00:00Z",
                                "business_deadline_seconds",
                                60,
                                "payment_timeout_seconds",
                                60,
                                "skus",
                                java.util.List.of(Map.of("sku_id", 1, "price", "-1", "stock", 5))));
        assertProblem(r, 400, "INVALID_REQUEST", "skus[0].price");
        assertThat(count("SELECT count(*) FROM activity WHERE activity_id = ?", id))
                .isZero();
    }

    private void assertNothingWritten(long activityId, long skuId) {
        assertThat(redis.sync().get(SkuSlot.single(activityId, skuId).stock())).isEqualTo("1");
        assertThat(redis.sync().hget(SkuSlot.single(activityId, skuId).counter(), "open_reserved"))
                .isEqualTo("0");
        assertThat(redis.sync().zcard(SkuSlot.single(activityId, skuId).sendDue()))
                .isZero();
        assertThat(count("SELECT count(*) FROM inventory_reservation WHERE activity_id = ?", activityId))
                .isZero();
    }

    private static void assertProblem(SaleClient.Response r, int status, String code, String field) {
        assertThat(r.status()).as(r.body().toString()).isEqualTo(status);
        assertThat(r.body()).containsEntry("code", code);
        assertThat(r.body()).containsKeys("title", "status", "detail", "type");
        if (field != null) {
            assertThat(r.body()).containsEntry("field", field);
        }
    }
}
