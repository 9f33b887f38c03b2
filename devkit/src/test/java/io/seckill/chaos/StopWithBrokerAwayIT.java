package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.engines.AppProcess;
import io.seckill.engines.BrokerProcess;
import io.seckill.support.TestChildApps;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * An instance asked to stop while its broker does not answer - frozen (SIGSTOP): connections open,
 * nothing comes back, every call runs out its timeout. Each RocketMQ client unregisters from the broker
 * as it shuts down and waits out that timeout; stopped one after the other, the roles of an instance
 * running them all (order and projection consumers, the dead-letter watch, the sender) add their waits
 * up to 13-21 s here, most of a 30 s grace period before a SIGKILL. Side by side, the longest decides.
 */
@Tag("outage")
class StopWithBrokerAwayIT {

    @Test
    @DisplayName("the broker frozen, an instance running every role is asked to stop (SIGTERM): it stops within 12 s, "
            + "its roles side by side, none failing to stop")
    void stopsWithinTheGracePeriod() throws Exception {
        Path home = Files.createTempDirectory("seckill-stop-broker-away");
        try (BrokerProcess broker =
                new BrokerProcess(home, BrokerProcess.locateBrokerHome(), BrokerProcess.SHORT_DELAY_LEVELS)) {
            broker.start();
            Map<String, String> p = TestChildApps.properties("stop-broker-away");
            p.put("seckill.mq.namesrv", broker.namesrvAddress());
            p.put("logging.level.io.seckill", "INFO");
            try (AppProcess app = new AppProcess(p, Path.of("target", "stop-broker-away"))) {
                app.start();
                long logged = Files.size(app.log().toPath());
                signal("STOP", broker.pid());
                try {
                    // the clients' calls go out and hang: the admission breaker's backlog reading runs out its timeout
                    Awaitility.await()
                            .atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(200))
                            .until(() -> logSince(app, logged).contains("mq.order_backlog_unknown"));
                    long asked = System.nanoTime();
                    signal("TERM", app.pid());
                    int exit = app.awaitExit(Duration.ofSeconds(60));
                    long tookMs = (System.nanoTime() - asked) / 1_000_000;
                    LoggerFactory.getLogger(StopWithBrokerAwayIT.class)
                            .info("stop.broker_away exit={} took_ms={}", exit, tookMs);
                    assertThat(exit)
                            .as("ended by the signal, through the shutdown hooks (see %s)", app.log())
                            .isEqualTo(143);
                    assertThat(tookMs)
                            .as("ms from SIGTERM to the process's end")
                            .isLessThan(12_000);
                    String log = Files.readString(app.log().toPath(), StandardCharsets.UTF_8);
                    assertThat(log)
                            .as("every role stopped without an error")
                            .doesNotContain("role.stop_failed")
                            .contains(
                                    "role.stopped role=order-consumer part=OrderConsumer",
                                    "role.stopped role=projection part=ProjectionConsumer",
                                    "role.stopped role=api part=OrderRequestSender",
                                    "role.stopped role=api part=AdmissionEntry");
                } finally {
                    signal("CONT", broker.pid());
                }
            }
        }
    }

    private static String logSince(AppProcess app, long offset) throws IOException {
        byte[] all = Files.readAllBytes(app.log().toPath());
        return new String(
                all,
                (int) Math.min(offset, all.length),
                (int) Math.max(0, all.length - offset),
                StandardCharsets.UTF_8);
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid))
                .inheritIO()
                .start();
        assertThat(kill.waitFor()).as("kill -%s %d", name, pid).isZero();
    }
}
