package io.seckill.reservation;

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

class HappyPathIT extends IntegrationTest {

    @Test
    @DisplayName(
            "reservation -> RocketMQ -> order in PostgreSQL -> outbox -> Redis projection; owner sees it, others do not")
    void reservationBecomesAnOrderAndIsProjected() throws Exception {
        long activityId = openSale(5);
        SaleClient.Response r = reserve(42, activityId, 1);
        assertThat(r.status()).isEqualTo(202);
        assertThat(r.code()).isEqualTo("QUEUED");
        String rid = (String) r.body().get("reservation_id");

        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            SaleClient.Response s = client().get("/api/v1/reservations/" + rid, userToken(42));
            assertThat(s.status()).isEqualTo(200);
            assertThat(s.body())
                    .containsEntry("state", "ORDER_CREATED")
                    .containsEntry("source", "redis")
                    .containsEntry("order_status", "CREATED");
        });
        Map<String, Object> order =
                jdbc.queryForMap("SELECT * FROM orders WHERE reservation_id = ?", UUID.fromString(rid));
        assertThat(order.get("status")).isEqualTo("CREATED");
        assertThat(order.get("amount").toString()).isEqualTo("10.50");
        assertThat(order.get("user_id")).isEqualTo(42L);
        assertThat(jdbc.queryForObject(
                        "SELECT status FROM inventory_reservation WHERE reservation_id = ?",
                        String.class,
                        UUID.fromString(rid)))
                .isEqualTo("ORDER_CREATED");
        assertThat(count(
                        "SELECT count(*) FROM consumer_inbox WHERE reservation_id = ? AND result_code = 'ORDER_CREATED'",
                        UUID.fromString(rid)))
                .isEqualTo(1);
        assertThat(redis.sync().hget(SkuSlot.single(activityId, 1).reservation(rid), "mq_state"))
                .isEqualTo("PUBLISHED");
        assertThat(redis.sync().zcard(SkuSlot.single(activityId, 1).sendDue())).isZero();

        SaleClient.Response stranger = client().get("/api/v1/reservations/" + rid, userToken(43));
        assertThat(stranger.status()).isEqualTo(404);
        assertThat(stranger.code()).isEqualTo("RESERVATION_NOT_FOUND");

        awaitSettled(activityId, 1);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("the same request id again returns the same reservation, also after Redis lost the request map")
    void replayReturnsTheSameReservation() throws Exception {
        long activityId = openSale(5);
        String requestId = UUID.randomUUID().toString();
        SaleClient.Response first = client().reserve(userToken(7), activityId, 1, requestId);
        SaleClient.Response again = client().reserve(userToken(7), activityId, 1, requestId);
        assertThat(again.status()).isEqualTo(202);
        assertThat(again.body())
                .containsEntry("reservation_id", first.body().get("reservation_id"))
                .containsEntry("replayed", true);

        redis.sync().del(SkuSlot.single(activityId, 1).request(7, requestId));
        SaleClient.Response afterLoss = client().reserve(userToken(7), activityId, 1, requestId);
        assertThat(afterLoss.status()).isEqualTo(202);
        assertThat(afterLoss.body())
                .containsEntry("reservation_id", first.body().get("reservation_id"));
        assertThat(redis.sync().get(SkuSlot.single(activityId, 1).stock())).isEqualTo("4");

        SaleClient.Response other = reserve(7, activityId, 1);
        assertThat(other.status()).isEqualTo(409);
        assertThat(other.body())
                .containsEntry("code", "ALREADY_RESERVED")
                .containsEntry("reservation_id", first.body().get("reservation_id"));
        awaitSettled(activityId, 1);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("metrics of the spine are exported at /actuator/prometheus")
    void metricsAreExported() throws Exception {
        long activityId = openSale(1);
        reserve(1, activityId, 1);
        awaitSettled(activityId, 1);
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(
                                        java.net.URI.create("http://127.0.0.1:" + port + "/actuator/prometheus"))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body())
                .contains(
                        "reservation_admitted_total",
                        "order_cancel_backlog ",
                        "order_consume_total{",
                        "outbox_pending",
                        "outbox_oldest_age_seconds",
                        "outbox_send_total{",
                        "inbox_duplicate_total",
                        "inbox_payload_conflict_total",
                        "db_final_stock_reject_total",
                        "order_user_unique_conflict_total",
                        "compensation_already_applied_total",
                        "outbox_lease_expired_total",
                        "order_created_latency_seconds_bucket{",
                        "outbox_attempt_count_bucket{");
    }

    @Test
    @DisplayName("fault #9: the status query falls back to PostgreSQL when the Redis projection is missing")
    void statusFallsBackToPostgres() throws Exception {
        long activityId = openSale(3);
        String rid = firstSettled(activityId, 301);
        redis.sync().del(SkuSlot.single(activityId, 1).reservation(rid));

        SaleClient.Response s = client().get("/api/v1/reservations/" + rid, userToken(301));
        assertThat(s.status()).isEqualTo(200);
        assertThat(s.body())
                .containsEntry("state", "ORDER_CREATED")
                .containsEntry("source", "postgres")
                .containsEntry("order_status", "CREATED")
                .containsKey("order_id");
        assertThat(client().get("/api/v1/reservations/" + rid, userToken(302)).status())
                .isEqualTo(404);
        assertThat(client().get("/api/v1/reservations/not-a-uuid", userToken(301))
                        .body())
                .containsEntry("code", "INVALID_REQUEST")
                .containsEntry("field", "reservation_id");
    }
}
