package io.seckill.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.support.IntegrationTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The operator's plane: a listener of its own, scopes per operation, an audit row before every change. */
class OperatorPlaneIT extends IntegrationTest {

    /** Everything on the buyers' port, the admin API included. */
    private SaleClient buyersPortOnly() {
        String api = "http://127.0.0.1:" + port;
        return new SaleClient(api, api, api);
    }

    /** Everything on the operator's listener, the buyer API included. */
    private SaleClient operatorListenerOnly() {
        String admin = "http://127.0.0.1:" + operatorPlane.port();
        return new SaleClient(admin, admin, admin);
    }

    @Test
    @DisplayName(
            "the admin API and the dashboard are not found on the buyers' port, even with an admin token; the buyer "
                    + "API is not found on the operator's listener")
    void eachListenerServesItsOwnSide() throws Exception {
        long activityId = openSale(2);
        assertThat(operatorPlane.port()).isPositive().isNotEqualTo(port);
        SaleClient.Response admin = buyersPortOnly().get("/api/v1/admin/dashboard", adminToken());
        assertThat(admin.status()).isEqualTo(404);
        assertThat(admin.code()).isEqualTo("NOT_FOUND");
        assertThat(buyersPortOnly()
                        .post("/api/v1/admin/activities/" + activityId + "/close", adminToken(), null)
                        .status())
                .isEqualTo(404);
        assertThat(buyersPortOnly().get("/dashboard.html", null).status()).isEqualTo(404);
        assertThat(operatorListenerOnly()
                        .reserve(
                                userToken(5),
                                activityId,
                                1,
                                java.util.UUID.randomUUID().toString()))
                .extracting(SaleClient.Response::status)
                .isEqualTo(404);
        assertThat(status(activityId))
                .as("nothing the refused calls asked happened")
                .isEqualTo("OPEN");
        assertThat(client().get("/api/v1/admin/dashboard", adminToken()).status())
                .isEqualTo(200);
    }

    @Test
    @DisplayName("a seckill:view token reads the dashboard and invariants, and is refused 403 on close-out, "
            + "close, freeze, adjust-stock, reconcile and the failpoints; a seckill:operate token closes the sale")
    void scopesPerOperation() throws Exception {
        long activityId = openSale(2);
        String view = viewToken();
        assertThat(client().get("/api/v1/admin/dashboard", view).status()).isEqualTo(200);
        assertThat(client().get("/api/v1/admin/invariants?activity_id=" + activityId, view)
                        .status())
                .isEqualTo(200);
        for (String path : List.of(
                "/api/v1/admin/activities/" + activityId + "/close-out?drain_seconds=0",
                "/api/v1/admin/activities/" + activityId + "/close",
                "/api/v1/admin/freeze/" + java.util.UUID.randomUUID(),
                "/api/v1/admin/activities/" + activityId + "/skus/1/adjust-stock",
                "/api/v1/admin/reconcile",
                "/api/v1/admin/failpoints/after_redis_reserve")) {
            SaleClient.Response r = client().post(path, view, Map.of("reason", "r", "delta", 1, "action", "throw"));
            assertThat(r.status()).as(path).isEqualTo(403);
            assertThat(r.code()).as(path).isEqualTo("FORBIDDEN");
        }
        assertThat(client().get("/api/v1/admin/failpoints", view).status()).isEqualTo(403);
        assertThat(status(activityId)).as("the view token changed nothing").isEqualTo("OPEN");
        assertThat(count("SELECT count(*) FROM audit_log WHERE operator = 'local/viewer'"))
                .as("a refused call never reached its handler, nor its audit")
                .isZero();

        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/close", operateToken(), null)
                        .status())
                .isEqualTo(200);
        assertThat(status(activityId)).isEqualTo("CLOSED");
    }

    @Test
    @DisplayName(
            "every operator call that changes something - create, warm, open, close, reconcile, failpoints, freeze - "
                    + "writes its audit row, naming the token's issuer and subject, before its handler runs, and its outcome after")
    void everyChangeIsAuditedFirst() throws Exception {
        long activityId = openSale(2);
        String rid = reservationId(41, activityId);
        awaitSettled(activityId, 1);
        client().post("/api/v1/admin/reconcile?activity_id=" + activityId, operateToken(), null);
        client().post("/api/v1/admin/failpoints/after_redis_reserve", operateToken(), Map.of("action", "off"));
        client().post("/api/v1/admin/freeze/" + rid, operateToken(), Map.of("reason", "audit test"));
        client().post("/api/v1/admin/activities/" + activityId + "/close", operateToken(), null);

        List<Map<String, Object>> calls = jdbc.queryForList(
                "SELECT audit_id, operator, action, object_id, after::text AS after FROM audit_log "
                        + "WHERE object_type = 'API' AND (object_id LIKE ? OR object_id LIKE ? OR object_id LIKE ?) "
                        + "ORDER BY audit_id",
                "%/activities%" + activityId + "%",
                "%activity_id=" + activityId + "%",
                "%" + rid + "%");
        List<String> requested = calls.stream()
                .filter(c -> c.get("action").equals("OPERATOR_CALL"))
                .map(c -> c.get("object_id").toString())
                .toList();
        assertThat(requested)
                .contains(
                        "POST /api/v1/admin/activities/" + activityId + "/warm",
                        "POST /api/v1/admin/activities/" + activityId + "/open",
                        "POST /api/v1/admin/activities/" + activityId + "/close",
                        "POST /api/v1/admin/freeze/" + rid);
        assertThat(count("SELECT count(*) FROM audit_log WHERE action = 'OPERATOR_CALL' AND object_id = "
                        + "'POST /api/v1/admin/activities' AND evidence::text LIKE '%/api/v1/admin/activities%'"))
                .as("the sale's creation")
                .isPositive();
        assertThat(count("SELECT count(*) FROM audit_log WHERE action = 'OPERATOR_CALL' AND object_id IN "
                        + "('POST /api/v1/admin/reconcile', 'POST /api/v1/admin/failpoints/after_redis_reserve')"))
                .isGreaterThanOrEqualTo(2);
        assertThat(calls)
                .as("each call's operator is the token's issuer and subject")
                .allSatisfy(c -> assertThat(c.get("operator").toString()).startsWith("local/"));
        assertThat(calls.stream().filter(c -> c.get("action").equals("OPERATOR_RESULT")))
                .as("and each outcome")
                .allSatisfy(c -> assertThat(c.get("after").toString()).contains("\"status\": 200"));
        long callRow = jdbc.queryForObject(
                "SELECT min(audit_id) FROM audit_log WHERE action = 'OPERATOR_CALL' AND object_id = ?",
                Long.class,
                "POST /api/v1/admin/freeze/" + rid);
        long freezeRow = jdbc.queryForObject(
                "SELECT min(audit_id) FROM audit_log WHERE object_type <> 'API' AND object_id = ?", Long.class, rid);
        assertThat(callRow).as("the call's row comes before the freeze's own").isLessThan(freezeRow);
    }

    private String status(long activityId) {
        return jdbc.queryForObject("SELECT status FROM activity WHERE activity_id = ?", String.class, activityId);
    }
}
