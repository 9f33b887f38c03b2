package io.seckill.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.support.IntegrationTest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** One buyer's share of the buyer API beside the reserve call (seckill.api.max-calls-per-buyer-per-second, 20). */
class BuyerCallLimitIT extends IntegrationTest {

    private static final int SHARE = 20;

    @Test
    @DisplayName("a buyer polling in a tight loop is answered 429 RATE_LIMITED past its share of a second; another "
            + "buyer and the same buyer's reserve call are not")
    void tightLoopIsCapped() throws Exception {
        long activityId = openSale(5);
        String hammer = userToken(501);
        int calls = 200;
        List<SaleClient.Response> answers = new ArrayList<>();
        long started = System.nanoTime();
        try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
            List<Future<SaleClient.Response>> sent = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                sent.add(pool.submit(() -> client().get("/api/v1/orders/" + UUID.randomUUID(), hammer)));
            }
            for (Future<SaleClient.Response> f : sent) {
                answers.add(f.get());
            }
        }
        long seconds = (System.nanoTime() - started) / 1_000_000_000L + 1;
        long served = answers.stream().filter(r -> r.status() == 404).count();
        List<SaleClient.Response> limited =
                answers.stream().filter(r -> r.status() == 429).toList();
        assertThat(served + limited.size())
                .as("every answer is the handler's or the cap's")
                .isEqualTo(calls);
        assertThat(served)
                .as("at most the share in each second the burst spanned (%d)", seconds)
                .isLessThanOrEqualTo(SHARE * (seconds + 1));
        assertThat(limited).isNotEmpty().allSatisfy(r -> {
            assertThat(r.code()).isEqualTo("RATE_LIMITED");
            assertThat(r.body()).containsEntry("retry_after_seconds", 1);
        });

        assertThat(client().get("/api/v1/orders/" + UUID.randomUUID(), userToken(502))
                        .status())
                .as("another buyer")
                .isEqualTo(404);
        assertThat(reserve(501, activityId, 1).status())
                .as("the reserve call has its own cap")
                .isEqualTo(202);
        assertThat(meters.counter("api.buyer.rate_limited").count()).isGreaterThanOrEqualTo(limited.size());
    }
}
