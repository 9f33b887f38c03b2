package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.IntegrationTest;
import io.seckill.support.SteadyBuyers;
import io.seckill.support.TcpProxy;
import io.seckill.support.TestEngines;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfiguration;

/**
 * The application cannot reach the RocketMQ NameServer - a relay in front of it drops everything, so its
 * connections go silent, as behind a partition or on a NameServer host that hangs - while the broker
 * itself is fine and registered. The clients keep the routes they learnt.
 */
@Tag("outage")
@ContextConfiguration(initializers = NameServerAwayIT.ThroughTheRelay.class)
class NameServerAwayIT extends IntegrationTest {

    private static final Logger log = LoggerFactory.getLogger(NameServerAwayIT.class);
    private static final Duration AWAY = Duration.ofSeconds(90);
    private static TcpProxy relay;

    /** The application's NameServer address is a relay to the engines' NameServer. */
    static final class ThroughTheRelay implements ApplicationContextInitializer<ConfigurableApplicationContext> {
        @Override
        public void initialize(ConfigurableApplicationContext app) {
            try {
                if (relay == null) {
                    String[] namesrv =
                            TestEngines.get().broker().namesrvAddress().split(":");
                    relay = new TcpProxy(namesrv[0], Integer.parseInt(namesrv[1]));
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot start the relay to the NameServer", e);
            }
            app.getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource(
                            "namesrv-relay", Map.of("seckill.mq.namesrv", "127.0.0.1:" + relay.port())));
        }
    }

    @AfterAll
    static void closeRelay() throws IOException {
        if (relay != null) {
            relay.close();
        }
    }

    @Test
    @DisplayName("the NameServer unreachable for 90 s mid-sale: every buyer is admitted (202) and every 30 s window "
            + "turns reservations into orders from the routes the clients hold, admission never pauses; after the heal "
            + "every reservation is an order and every invariant holds")
    void salesGoOnWithoutTheNameServer() throws Exception {
        assertThat(producer.getNamesrvAddr())
                .as("the application asks the NameServer through the relay")
                .isEqualTo("127.0.0.1:" + relay.port());
        long activityId = openSale(20_000);
        double pausesBefore = counterTotal("admission.trips");
        List<String> admitted;
        try (SteadyBuyers buyers = SteadyBuyers.start(user -> reserve(user, activityId, 1))) {
            buyers.awaitMoreAdmitted(10, Duration.ofSeconds(30));
            relay.partition();
            try {
                long windows = AWAY.toSeconds() / 30;
                for (int w = 0; w < windows; w++) {
                    long ordersBefore = orders(activityId);
                    int admittedBefore = buyers.admitted();
                    awaitQuietly(Duration.ofSeconds(30));
                    long ordered = orders(activityId) - ordersBefore;
                    int reserved = buyers.admitted() - admittedBefore;
                    log.info(
                            "namesrv.away window={} admitted={} ordered={} answers={}",
                            w,
                            reserved,
                            ordered,
                            buyers.statuses());
                    assertThat(reserved)
                            .as("admitted in window %d without the NameServer", w)
                            .isPositive();
                    assertThat(ordered)
                            .as("orders made in window %d without the NameServer", w)
                            .isPositive();
                }
            } finally {
                relay.heal();
            }
            buyers.awaitMoreAdmitted(10, Duration.ofSeconds(30));
            buyers.close();
            assertThat(buyers.statuses().keySet())
                    .as("answers: " + buyers.statuses())
                    .containsOnly(202);
            admitted = buyers.queued();
        }
        assertThat(counterTotal("admission.trips") - pausesBefore)
                .as("admission pauses")
                .isZero();
        awaitEnded(activityId, admitted);
        assertThat(awaitAllSettled(activityId)).isEqualTo(admitted.size());
        assertThat(orders(activityId)).isEqualTo(admitted.size());
        assertInvariants(activityId, true);
    }

    private long orders(long activityId) {
        return count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId);
    }

    /** Lets a window of the outage pass while the buyers keep buying. */
    private static void awaitQuietly(Duration window) {
        long until = System.nanoTime() + window.toNanos();
        org.awaitility.Awaitility.await()
                .atMost(window.plusSeconds(5))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> System.nanoTime() >= until);
    }
}
