package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.support.IntegrationTest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Contention on one hot SKU through the real API, broker and batched consumer (DESIGN.md §13.2). */
class ContentionIT extends IntegrationTest {

    @Autowired
    AdmissionLimiter limiter;

    @Test
    @DisplayName("stock N, 10xN distinct users at once: exactly N orders, conservation in PG and Redis, no oversell")
    void tenTimesMoreBuyersThanUnits() throws Exception {
        int n = 40;
        long activityId = openSale(n);
        List<Integer> statuses = race(10 * n, u -> reserve(1_000 + u, activityId, 1));
        assertThat(statuses.stream().filter(s -> s == 202).count()).isEqualTo(n);
        assertThat(statuses.stream().filter(s -> s == 409).count()).isEqualTo(9L * n);
        awaitSettled(activityId, n);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(n);
        assertThat(count("SELECT count(DISTINCT user_id) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(n);
        assertThat(count("SELECT available_stock FROM sku_inventory WHERE activity_id = ?", activityId))
                .isZero();
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "1,000 concurrent reservations by one user with different request ids: at most one order, PG stock down by at most one")
    void oneUserThousandRequests() throws Exception {
        // the per-user rate limit would answer most of these 429 first; this test is about what Redis and PostgreSQL
        // hold
        limiter.setMaxPerUserPerSecond(0);
        long activityId = openSale(10);
        List<Integer> statuses;
        try {
            statuses = race(1_000, u -> reserve(77, activityId, 1));
        } finally {
            limiter.setMaxPerUserPerSecond(10);
        }
        assertThat(statuses.stream().filter(s -> s == 202).count()).isEqualTo(1);
        assertThat(statuses.stream().filter(s -> s == 409).count()).isEqualTo(999);
        awaitSettled(activityId, 1);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ? AND user_id = 77", activityId))
                .isEqualTo(1);
        assertThat(count("SELECT available_stock FROM sku_inventory WHERE activity_id = ?", activityId))
                .isEqualTo(9);
        assertInvariants(activityId, true);
    }

    interface Attempt {
        SaleClient.Response run(int index) throws Exception;
    }

    static List<Integer> race(int attempts, Attempt attempt) throws Exception {
        List<Integer> out = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(32)) {
            List<Future<Integer>> fs = new ArrayList<>();
            for (int i = 0; i < attempts; i++) {
                int index = i;
                fs.add(pool.submit(() -> attempt.run(index).status()));
            }
            for (Future<Integer> f : fs) {
                out.add(f.get());
            }
        }
        return out;
    }
}
