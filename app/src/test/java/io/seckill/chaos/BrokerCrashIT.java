package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.seckill.support.IntegrationTest;
import io.seckill.support.TestEngines;

/**
 * A real broker crash: SIGKILL of the broker's JVM in the middle of a sale, a restart on the same
 * store, and every admitted reservation still reaches its order. Slow suite: it restarts the
 * broker every other test in this JVM depends on.
 */
@Tag("slow")
class BrokerCrashIT extends IntegrationTest {

    @Test
    @DisplayName("fault #2: broker killed (kill -9) mid-sale and restarted on its store: every QUEUED reservation becomes an order")
    void brokerKilledMidSale() throws Exception {
        long activityId = openSale(60);
        for (int u = 1; u <= 20; u++) {
            assertThat(reserve(u, activityId, 1).status()).isEqualTo(202);
        }
        awaitSettled(activityId, 20);

        TestEngines.get().broker().kill();
        for (int u = 21; u <= 40; u++) {
            assertThat(reserve(u, activityId, 1).status()).as("admission keeps answering while the broker is down")
                    .isEqualTo(202);
        }
        String slot = "seckill:{" + activityId + ":1}:";
        assertThat(redis.sync().zcard(slot + "send_due")).isPositive();

        TestEngines.get().broker().start();
        Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> count(
                "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status = 'ORDER_CREATED'", activityId) == 40);
        awaitSettled(activityId, 40);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> redis.sync().zcard(slot + "send_due") == 0);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId)).isEqualTo(40);
        assertInvariants(activityId, true);
    }
}
