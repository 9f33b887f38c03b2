package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.db.DbBreaker;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TestEngines;
import io.seckill.support.TimedCalls;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Status;

/**
 * PostgreSQL stopped against buyers' requests on the API port: reads fail fast, the reserve call goes on.
 * In the outage suite with the other tests that stop an engine: every worker of the shared context meets
 * the outage, and the tests after it would start among their retries.
 */
@Tag("outage")
class DatabaseAwayIT extends IntegrationTest {

    @Autowired
    DbBreaker dbCalls;

    private static final int POLLERS = 64;
    private static final int AT_ONCE = 16;

    @Test
    @DisplayName(
            "PostgreSQL stopped: the API pod stays ready, an order consumer's is not; once the first reads wait out the pool, status polls of stale projections are "
                    + "answered QUEUED from Redis at once, an order read is 503 UNAVAILABLE with Retry-After, and a reserve call "
                    + "is still admitted; restarted, reads come back by themselves and every invariant holds")
    void readsFailFastWhilePostgresIsAway() throws Exception {
        long activityId = openSale(20);
        UUID order = placeOrder(activityId, 1, 611);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        List<String> stale = new ArrayList<>();
        for (int i = 0; i < POLLERS; i++) {
            String rid = UUID.randomUUID().toString();
            redis.sync()
                    .hset(
                            slot.reservation(rid),
                            Map.of(
                                    "user_id",
                                    Long.toString(620 + i),
                                    "status",
                                    "RESERVED",
                                    "reserved_at_ms",
                                    Long.toString(System.currentTimeMillis() - 60_000)));
            stale.add(rid);
        }
        double refusedBefore = counter("postgres.breaker.refused");
        TimedCalls during;
        HttpResponse<String> orderRead;
        SaleClient.Response admitted;
        long admittedMs;
        int apiReady;
        Status consumerReady;
        Status projectionReady;
        TestEngines.get().stopPostgres();
        try {
            during = TimedCalls.run(POLLERS, AT_ONCE, i -> {
                SaleClient.Response r = client().get(
                                "/api/v1/reservations/" + stale.get(i) + "?activity_id=" + activityId + "&sku_id=1",
                                userToken(620 + i));
                return r.status() + " " + r.body().get("state");
            });
            orderRead = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/orders/" + order))
                                    .header("Authorization", "Bearer " + userToken(611))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            long t0 = System.nanoTime();
            admitted = reserve(690, activityId, 1);
            admittedMs = (System.nanoTime() - t0) / 1_000_000;
            // the readiness matrix's PostgreSQL row (docs/DEPLOYMENT.md)
            apiReady = readinessStatus();
            consumerReady = workerReadiness("order-consumer");
            projectionReady = workerReadiness("projection");
        } finally {
            TestEngines.get().startPostgres();
            stale.forEach(rid -> redis.sync().del(slot.reservation(rid)));
        }
        assertThat(during.answers().keySet())
                .as("answers while PostgreSQL was away: " + during.answers())
                .containsOnly("200 QUEUED");
        assertThat(during.waited())
                .as("polls that waited out the pool (%d at once)", AT_ONCE)
                .isLessThanOrEqualTo(2 * AT_ONCE);
        assertThat(during.atOnce()).as("polls answered in under 200 ms").isGreaterThanOrEqualTo(POLLERS - 3 * AT_ONCE);
        assertThat(counter("postgres.breaker.refused") - refusedBefore)
                .as("reads refused by the breaker, not tried")
                .isGreaterThanOrEqualTo(POLLERS - 3 * AT_ONCE);
        assertThat(orderRead.statusCode()).as(orderRead.body()).isEqualTo(503);
        assertThat(orderRead.body()).contains("\"code\":\"UNAVAILABLE\"");
        assertThat(orderRead.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(admitted.code()).as("the reserve call needs only Redis").isEqualTo("QUEUED");
        assertThat(admittedMs).as("ms to admit while PostgreSQL was away").isLessThan(2000);
        assertThat(apiReady)
                .as("an API pod stays in the Service while PostgreSQL is away")
                .isEqualTo(200);
        assertThat(consumerReady).as("an order-consumer pod leaves it").isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(projectionReady).as("a projection pod needs no PostgreSQL").isEqualTo(Status.UP);

        // reads come back, and the breaker closes on the probes' answers: the next test finds reads going through
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() ->
                        client().get("/api/v1/orders/" + order, userToken(611)).status() == 200 && dbCalls.isClosed());
        awaitSettled(activityId, 2);
        assertInvariants(activityId, true);
    }
}
