package io.seckill.activity;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Made-up activity ids cost PostgreSQL and the heap nothing beyond a shared budget. */
class UnknownSalesIT extends IntegrationTest {

    @Autowired
    SaleRegistry registry;

    @Test
    @DisplayName(
            "100,000 lookups of random activity ids: PostgreSQL is asked at most the budget's 20 a second, the ids "
                    + "remembered stay bounded, and a sale created meanwhile is still found")
    void randomIdsCostNothing() throws Exception {
        double loadsBefore = counter("sale.lookups", "result", "loaded");
        long t0 = System.nanoTime();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < 100_000; i++) {
            assertThat(registry.find(random.nextLong(1L << 40, 1L << 50))).isEmpty();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        double loads = counter("sale.lookups", "result", "loaded") - loadsBefore;
        assertThat(loads)
                .as("lookups that reached PostgreSQL in %.1f s", seconds)
                .isLessThanOrEqualTo(20 * (Math.ceil(seconds) + 1));
        assertThat(counter("sale.lookups", "result", "over_budget")).isGreaterThanOrEqualTo(100_000 - loads);
        assertThat(registry.unknownRemembered()).isLessThanOrEqualTo(SaleRegistry.MAX_UNKNOWN);

        long activityId = openSale(3);
        Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> registry.find(activityId).isPresent());
    }

    @Test
    @DisplayName("reserve calls naming made-up sales are answered 404 ACTIVITY_NOT_FOUND, within the lookup budget")
    void reservingAMadeUpSale() throws Exception {
        double loadsBefore = counter("sale.lookups", "result", "loaded");
        long t0 = System.nanoTime();
        SaleClient client = client();
        for (int i = 0; i < 500; i++) {
            long made = ThreadLocalRandom.current().nextLong(1L << 40, 1L << 50);
            SaleClient.Response r = client.reserve(
                    userToken(900_000 + i), made, 1, UUID.randomUUID().toString());
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.code()).isEqualTo("ACTIVITY_NOT_FOUND");
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertThat(counter("sale.lookups", "result", "loaded") - loadsBefore)
                .isLessThanOrEqualTo(20 * (Math.ceil(seconds) + 1));
    }
}
