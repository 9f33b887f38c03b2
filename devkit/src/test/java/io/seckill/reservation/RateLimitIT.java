package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.entry.AdmissionEntry;
import io.seckill.support.IntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

class RateLimitIT extends IntegrationTest {

    @Autowired
    AdmissionLimiter limiter;

    @Autowired
    AdmissionEntry entry;

    @Test
    @DisplayName(
            "above seckill.admission.max-per-second a reservation request is answered 429 RATE_LIMITED before Redis")
    void shedsTheExcess() throws Exception {
        long activityId = openSale(100);
        Map<String, AtomicInteger> codes = new ConcurrentHashMap<>();
        List<SaleClient.Response> limited = java.util.Collections.synchronizedList(new ArrayList<>());
        limiter.setMaxPerSecond(5);
        long t0 = System.nanoTime();
        long seconds;
        try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
            List<Future<?>> all = new ArrayList<>();
            for (long u = 1; u <= 40; u++) {
                long user = u;
                all.add(pool.submit(() -> {
                    SaleClient.Response r = reserve(user, activityId, 1);
                    codes.computeIfAbsent(r.code(), k -> new AtomicInteger()).incrementAndGet();
                    if (r.status() == 429) {
                        limited.add(r);
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get();
            }
            seconds = (System.nanoTime() - t0) / 1_000_000_000L + 1;
        } finally {
            limiter.setMaxPerSecond(0);
        }
        assertThat(codes).as(codes.toString()).containsKeys("RATE_LIMITED", "QUEUED");
        assertThat(codes.get("QUEUED").get() + codes.get("RATE_LIMITED").get()).isEqualTo(40);
        assertThat(codes.get("QUEUED").get())
                .as("at most 5 per second admitted")
                .isLessThanOrEqualTo(5 * (int) (seconds + 1));
        assertThat(limited.getFirst().body()).containsEntry("retry_after_seconds", 1);
        long reservations = codes.get("QUEUED").get();
        awaitSettled(activityId, reservations);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(reservations);
        assertThat(reserve(99, activityId, 1).code()).as("no limit again").isEqualTo("QUEUED");
        assertInvariants(activityId, false);
    }

    @Test
    @DisplayName(
            "an anonymous flood is answered 401 before the limiter: it uses up no permits, a real buyer is still admitted")
    void anonymousFloodDoesNotStarveBuyers() throws Exception {
        long activityId = openSale(10);
        limiter.setMaxPerSecond(5);
        try {
            for (int i = 0; i < 50; i++) {
                SaleClient.Response r = client().reserve(
                                "not-a-token",
                                activityId,
                                1,
                                java.util.UUID.randomUUID().toString());
                assertThat(r.status()).isEqualTo(401);
            }
            assertThat(reserve(801, activityId, 1).code())
                    .as("the permits are still there")
                    .isEqualTo("QUEUED");
        } finally {
            limiter.setMaxPerSecond(0);
        }
        awaitSettled(activityId, 1);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("a 429 says when to come back, on both ports: Retry-After: 1 and retry_after_seconds")
    void retryAfterOnBothPorts() throws Exception {
        long activityId = openSale(10);
        limiter.setMaxPerUserPerSecond(1);
        HttpClient http = HttpClient.newHttpClient();
        try {
            for (int toPort : new int[] {port, entry.port()}) {
                List<HttpResponse<String>> limited = new ArrayList<>();
                for (int i = 0; i < 5 && limited.isEmpty(); i++) {
                    HttpResponse<String> r = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + toPort + "/api/v1/activities/"
                                            + activityId + "/skus/1/reservations"))
                                    .header("Authorization", "Bearer " + userToken(804))
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(
                                            "{\"request_id\":\"" + UUID.randomUUID() + "\"}"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 429) {
                        limited.add(r);
                    }
                }
                assertThat(limited).as("a 429 on port %d", toPort).isNotEmpty();
                assertThat(limited.getFirst().headers().firstValue("Retry-After"))
                        .hasValue("1");
                assertThat(limited.getFirst().body()).contains("\"retry_after_seconds\":1");
            }
        } finally {
            limiter.setMaxPerUserPerSecond(10);
        }
    }

    @Test
    @DisplayName("one buyer above seckill.admission.max-per-user-per-second is answered 429; another buyer is not")
    void perUserLimit() throws Exception {
        long activityId = openSale(10);
        limiter.setMaxPerUserPerSecond(3);
        Map<String, AtomicInteger> codes = new ConcurrentHashMap<>();
        try {
            // one second's worth of the same buyer's retries (each with a new request id, as a script would send)
            for (int i = 0; i < 20; i++) {
                codes.computeIfAbsent(reserve(802, activityId, 1).code(), k -> new AtomicInteger())
                        .incrementAndGet();
            }
            assertThat(reserve(803, activityId, 1).code()).isEqualTo("QUEUED");
        } finally {
            limiter.setMaxPerUserPerSecond(10);
        }
        assertThat(codes).as(codes.toString()).containsKey("RATE_LIMITED");
        assertThat(codes.get("QUEUED").get()).as("one attempt per user anyway").isEqualTo(1);
        awaitSettled(activityId, 2);
        assertInvariants(activityId, true);
    }
}
