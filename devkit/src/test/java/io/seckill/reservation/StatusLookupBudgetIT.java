package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import io.seckill.support.SmallLimits;
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
import org.junit.jupiter.api.Test;

/** Buyers' status polls ask PostgreSQL at most seckill.reservation.status-db-reads-per-second times a second (5 here). */
@SmallLimits
class StatusLookupBudgetIT extends IntegrationTest {

    private static final int POLLS = 15;

    @Test
    @DisplayName(
            "a reservation whose projection has said RESERVED for a minute (the pipeline behind) is polled 15 times "
                    + "at once: each poll is answered QUEUED, and past the budget from Redis without asking PostgreSQL")
    void stalePollsPastTheBudgetAreAnsweredFromRedis() throws Exception {
        long activityId = openSale(5);
        String rid = UUID.randomUUID().toString();
        String key = SkuSlot.single(activityId, 1).reservation(rid);
        redis.sync()
                .hset(
                        key,
                        Map.of(
                                "user_id",
                                "501",
                                "status",
                                "RESERVED",
                                "reserved_at_ms",
                                Long.toString(System.currentTimeMillis() - 60_000)));
        double read = counter("reservation.status.db_reads", "result", "read");
        double skipped = counter("reservation.status.db_reads", "result", "skipped");
        try {
            for (int i = 0; i < POLLS; i++) {
                SaleClient.Response s = client().get(
                                "/api/v1/reservations/" + rid + "?activity_id=" + activityId + "&sku_id=1",
                                userToken(501));
                assertThat(s.status()).as(s.body().toString()).isEqualTo(200);
                assertThat(s.body()).containsEntry("state", "QUEUED");
            }
        } finally {
            redis.sync().del(key);
        }
        double reads = counter("reservation.status.db_reads", "result", "read") - read;
        double skips = counter("reservation.status.db_reads", "result", "skipped") - skipped;
        assertThat(reads + skips).as("one budget check per stale poll").isEqualTo(POLLS);
        assertThat(skips).as("polls answered from Redis alone").isGreaterThanOrEqualTo(1);
        assertThat(reads).as("PostgreSQL lookups: at most 5 a second").isLessThanOrEqualTo(POLLS - skips);
    }

    @Test
    @DisplayName(
            "an id in neither Redis nor PostgreSQL, looked up 15 times at once, is 503 BUSY with Retry-After past the "
                    + "budget (never a 404 PostgreSQL has not confirmed), and a 404 once the budget refills")
    void unknownIdsPastTheBudgetAreBusy() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String path = "/api/v1/reservations/" + UUID.randomUUID();
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < POLLS; i++) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                            .header("Authorization", "Bearer " + userToken(502))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            statuses.add(r.statusCode());
            if (r.statusCode() == 503) {
                assertThat(r.body()).contains("\"code\":\"BUSY\"");
                assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
            }
        }
        assertThat(statuses)
                .as("statuses of %d lookups of an unknown id", POLLS)
                .isSubsetOf(404, 503)
                .contains(503);
        assertThat(statuses.stream().filter(s -> s == 404).count())
                .as("lookups PostgreSQL answered")
                .isLessThanOrEqualTo(10);
        Awaitility.await()
                .atMost(Duration.ofSeconds(3))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> client().get(path, userToken(502)).status() == 404);
    }
}
