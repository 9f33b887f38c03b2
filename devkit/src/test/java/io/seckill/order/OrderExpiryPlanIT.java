package io.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.ClaimPlans;
import io.seckill.support.IntegrationTest;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The deadline sweep costs the orders that expired, not the orders still open: a sale leaves many
 * thousands of orders waiting for payment, and the sweep runs every few seconds.
 */
class OrderExpiryPlanIT extends IntegrationTest {

    private static final int BATCH = 100;

    @Test
    @DisplayName(
            "the sweep of an analyzed order table with 10,000 open orders, 50 of them expired, and 20,000 paid reads at "
                    + "most 100 rows in any scan and moves exactly the 50 expired to CANCEL_PENDING")
    void sweepReadsWhatExpired() {
        ClaimPlans plans = new ClaimPlans(jdbc, tx);
        plans.inCopyOf("orders", table -> {
            fill(table, "PAID", 20_000, "-1 hour", 0);
            List<UUID> expired = fill(table, "CREATED", 50, "-1 minute", 20_000);
            fill(table, "CREATED", 10_000, "15 minutes", 20_050);
            jdbc.execute("ANALYZE " + table);
            String sweep = OrderRepository.MARK_EXPIRED.replace("orders", table);

            assertThat(plans.mostRowsOneScanRead(table, sweep, BATCH))
                    .as("rows one scan of the orders read by the sweep")
                    .isLessThanOrEqualTo(BATCH);
            assertThat(plans.claim(sweep, BATCH)).containsExactlyInAnyOrderElementsOf(expired);
        });
    }

    /**
     * {@code n} orders in {@code status} of one SKU, expiring {@code expiresIn} from now, buyers after {@code users}; each
     * id derived from its reservation's, as the table requires.
     */
    private List<UUID> fill(String table, String status, int n, String expiresIn, int users) {
        return jdbc.queryForList("""
                INSERT INTO %s (order_id, activity_id, sku_id, user_id, request_id, reservation_id, status, amount, expires_at)
                SELECT order_id_of(r), 1, 1, u, gen_random_uuid(), r, ?, 1.00,
                       clock_timestamp() + ?::interval + u * interval '1 microsecond'
                FROM (SELECT u, gen_random_uuid() AS r FROM generate_series(? + 1, ? + ?) AS u) AS t
                RETURNING order_id""".formatted(table), UUID.class, status, expiresIn, users, users, n);
    }
}
