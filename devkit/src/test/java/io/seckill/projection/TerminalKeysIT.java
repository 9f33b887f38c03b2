package io.seckill.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.redis.SkuSlot;
import io.seckill.support.ChildSales;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Terminal reservation hashes (cancelled, compensated) and their markers expire only once their sale is no longer
 * judged: in a month-long sale, a week-long expiry would drop them while the reconciler still reads them, and it
 * would take each for a hash a failover lost.
 */
class TerminalKeysIT extends IntegrationTest {

    @Test
    @DisplayName("a month-long sale: a cancelled order's hash and release marker, and a compensated reservation's "
            + "hash and marker, outlive the sale, its deadlines and a week")
    void terminalKeysOutliveALongSale() throws Exception {
        long activityId = newActivityId();
        ChildSales.open(client(), client(), activityId, 5, 900, 1, Duration.ofDays(30));
        SkuSlot slot = SkuSlot.single(activityId, 1);
        UUID order = placeOrder(activityId, 1, 1);
        String cancelled = reservationIdOf(order);
        SaleClient.Response c = client().post("/api/v1/orders/" + order + "/cancel", userToken(1), null);
        assertThat(c.status()).as(c.body().toString()).isEqualTo(200);
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> "CANCELLED".equals(redis.sync().hget(slot.reservation(cancelled), "status")));

        placeOrder(activityId, 1, 2);
        // buyer 2's mark lost: their second attempt is rejected by PostgreSQL and compensated
        redis.sync().del(slot.user(2));
        String rejected = (String) reserve(2, activityId, 1).body().get("reservation_id");
        awaitSettled(activityId, 3);
        compensation.runOnce("terminal-keys");
        assertThat(redis.sync().hget(slot.reservation(rejected), "status")).isEqualTo("COMPENSATED");

        Duration month = Duration.ofDays(30 + 7);
        for (String key : new String[] {
            slot.reservation(cancelled),
            slot.releaseMarker(cancelled),
            slot.reservation(rejected),
            slot.compensationMarker(rejected)
        }) {
            assertThat(Duration.ofMillis(redis.sync().pttl(key)))
                    .as(key)
                    .isGreaterThan(month)
                    .isLessThan(month.plusDays(1));
        }
        assertInvariants(activityId, true);
    }

    private String reservationIdOf(UUID order) {
        return jdbc.queryForObject("SELECT reservation_id::text FROM orders WHERE order_id = ?", String.class, order);
    }
}
