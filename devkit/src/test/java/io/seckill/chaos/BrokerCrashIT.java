package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TestEngines;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;

/**
 * A real broker crash: SIGKILL of the broker's JVM in the middle of a sale, a restart on the same
 * store, and every admitted reservation still reaches its order. Slow suite: it restarts the
 * broker every other test in this JVM depends on.
 */
@Tag("slow")
class BrokerCrashIT extends IntegrationTest {

    @Test
    @DisplayName(
            "fault #2: broker killed (kill -9) mid-sale and restarted on its store: every QUEUED reservation becomes an order")
    void brokerKilledMidSale() throws Exception {
        long activityId = openSale(500);
        for (int u = 1; u <= 20; u++) {
            assertThat(reserve(u, activityId, 1).status()).isEqualTo(202);
        }
        awaitSettled(activityId, 20);

        TestEngines.get().broker().kill();
        // admission keeps answering while the broker is down - until the sends' failures trip the entry breaker
        // (fault #2: persistent MQ failure pauses the entry), which a fast-failing send path can do within these
        int duringOutage = 0;
        for (int u = 21; u <= 40; u++) {
            SaleClient.Response r = reserve(u, activityId, 1);
            if (r.status() == 503) {
                assertThat(r.code()).as(r.body().toString()).isEqualTo("ADMISSION_PAUSED");
                break;
            }
            assertThat(r.status()).as(r.body().toString()).isEqualTo(202);
            duringOutage++;
        }
        assertThat(duringOutage).as("admitted while the broker was down").isPositive();
        SkuSlot slot = SkuSlot.single(activityId, 1);
        assertThat(redis.sync().zcard(slot.sendDue())).isPositive();
        // the readiness matrix's broker row (docs/DEPLOYMENT.md): once the send path's routes are gone, an API pod
        // stays ready, an order consumer's pod does not, a payment pod needs no broker
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> workerReadiness("order-consumer") == Status.OUT_OF_SERVICE);
        assertThat(readinessStatus()).as("an API pod stays in the Service").isEqualTo(200);
        assertThat(workerReadiness("payment")).isEqualTo(Status.UP);
        // the entry breaker: once the oldest unsent reservation is too old, admission pauses instead of taking units
        java.util.concurrent.atomic.AtomicInteger admitted =
                new java.util.concurrent.atomic.AtomicInteger(20 + duringOutage);
        java.util.concurrent.atomic.AtomicLong probeUser = new java.util.concurrent.atomic.AtomicLong(1_000);
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    var r = reserve(probeUser.incrementAndGet(), activityId, 1);
                    if (r.status() == 202) {
                        admitted.incrementAndGet();
                    }
                    return r.code().equals("ADMISSION_PAUSED");
                });
        int expected = admitted.get();

        TestEngines.get().broker().start();
        Awaitility.await()
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> count(
                                "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status = 'ORDER_CREATED'",
                                activityId)
                        == expected);
        awaitSettled(activityId, expected);
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> redis.sync().zcard(slot.sendDue()) == 0);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(expected);
        assertInvariants(activityId, true);
        // and it closes by itself once orders flow again
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> reserve(probeUser.incrementAndGet(), activityId, 1).status() == 202);
    }
}
