package io.seckill.dlq;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TestEngines;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** DESIGN.md §7.3, 15.8: bounded redelivery, then %DLQ% - watched, listed, replayed with the same ids; never terminal. */
class DlqIT extends IntegrationTest {

    @Test
    @DisplayName(
            "a message that keeps failing lands in %DLQ% after bounded retries; the watcher counts it; replay settles it once")
    void deadLetterIsReplayed() throws Exception {
        long activityId = openSale(3);
        String group = props.mq().orderConsumerGroup();
        try (DeadLetters dlq = new DeadLetters(TestEngines.get().namesrvAddress())) {
            long before = dlq.count(group);
            String rid;
            Failpoints.arm(Failpoint.AFTER_INBOX_INSERT, "throw");
            try {
                rid = reservationId(701, activityId);
                Awaitility.await()
                        .atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> dlq.count(group) > before);
            } finally {
                Failpoints.disarmAll();
            }
            assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                    .isZero();
            List<DeadLetters.Letter> letters = dlq.list(group, 10_000);
            assertThat(letters).anySatisfy(l -> {
                assertThat(l.keys()).isEqualTo(rid);
                assertThat(l.originalTopic()).isEqualTo(props.mq().orderRequestTopic());
                assertThat(l.reconsumeTimes()).isGreaterThanOrEqualTo(3);
            });
            Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> meters.get("mq.dlq.messages")
                                    .tag("group", group)
                                    .gauge()
                                    .value()
                            > before);

            // an object under a manual hold is not replayed
            jdbc.update(
                    "INSERT INTO manual_hold (object_type, object_id, reason, operator) VALUES ('RESERVATION', ?, "
                            + "'checking it', 'test')",
                    rid);
            assertThat(io.seckill.cli.SeckillCli.commandLine()
                            .execute(
                                    "dlq",
                                    "replay",
                                    "--namesrv",
                                    TestEngines.get().namesrvAddress(),
                                    "--group",
                                    group,
                                    "--jdbc-url",
                                    TestEngines.get().jdbcUrl(),
                                    "--db-user",
                                    "postgres",
                                    "--db-password",
                                    "postgres"))
                    .isZero();
            Awaitility.await("held: not replayed")
                    .during(Duration.ofSeconds(3))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> count("SELECT count(*) FROM orders WHERE reservation_id = ?::uuid", rid) == 0);
            jdbc.update("DELETE FROM manual_hold WHERE object_id = ?", rid);

            assertThat(dlq.replay(group, 10_000)).isPositive();
            awaitSettled(activityId, 1);
            assertThat(count("SELECT count(*) FROM orders WHERE reservation_id = ?::uuid", rid))
                    .isEqualTo(1);
            assertInvariants(activityId, true);
        }
    }
}
