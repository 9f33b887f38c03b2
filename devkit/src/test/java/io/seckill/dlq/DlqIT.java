package io.seckill.dlq;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.mq.MqClients;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
        try (DeadLetters dlq = new DeadLetters(props.mq().namesrv(), MqClients.credentials(props.mq()))) {
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

            SaleClient.Response listed = client().get("/api/v1/admin/dlq?group=" + group, viewToken());
            assertThat(listed.status()).as(listed.body().toString()).isEqualTo(200);
            assertThat(listed.body().get("letters").toString()).contains(rid);
            SaleClient.Response notAllowed = client().post(
                            "/api/v1/admin/dlq/replay",
                            viewToken(),
                            Map.of("group", group, "reason", "a viewer tries"));
            assertThat(notAllowed.status()).as("replay needs seckill:operate").isEqualTo(403);
            assertThat(client().post("/api/v1/admin/dlq/replay", adminToken(), Map.of("group", "x", "reason", "r"))
                            .body())
                    .containsEntry("field", "group");
            assertThat(client().post("/api/v1/admin/dlq/replay", adminToken(), Map.of("group", group))
                            .body())
                    .containsEntry("field", "reason");

            // an object under a manual hold is not replayed
            jdbc.update(
                    "INSERT INTO manual_hold (object_type, object_id, reason, operator) VALUES ('RESERVATION', ?, "
                            + "'checking it', 'test')",
                    rid);
            assertThat(io.seckill.cli.SeckillCli.commandLine()
                            .execute(
                                    "dlq",
                                    "replay",
                                    "--url",
                                    "http://127.0.0.1:" + operatorPlane.port(),
                                    "--token",
                                    adminToken(),
                                    "--group",
                                    group,
                                    "--reason",
                                    "incident 9: the consumer is fixed"))
                    .isZero();
            Awaitility.await("held: not replayed")
                    .during(Duration.ofSeconds(3))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> count("SELECT count(*) FROM orders WHERE reservation_id = ?::uuid", rid) == 0);
            assertThat(jdbc.queryForMap(
                            "SELECT operator, reason, before->>'letters' AS found, after->>'left_held' AS held "
                                    + "FROM audit_log WHERE action = 'DLQ_REPLAY' ORDER BY audit_id DESC LIMIT 1"))
                    .containsEntry("operator", "local/test")
                    .containsEntry("reason", "incident 9: the consumer is fixed")
                    .satisfies(m -> assertThat(Integer.parseInt((String) m.get("found")))
                            .isPositive())
                    .satisfies(m -> assertThat((String) m.get("held")).isNotEqualTo("[]"));
            jdbc.update("DELETE FROM manual_hold WHERE object_id = ?", rid);

            SaleClient.Response replayed = client().post(
                            "/api/v1/admin/dlq/replay",
                            adminToken(),
                            Map.of("group", group, "max", 10_000, "reason", "incident 9: hold released"));
            assertThat(replayed.status()).as(replayed.body().toString()).isEqualTo(200);
            assertThat((Integer) replayed.body().get("re_sent")).isPositive();
            awaitSettled(activityId, 1);
            assertThat(count("SELECT count(*) FROM orders WHERE reservation_id = ?::uuid", rid))
                    .isEqualTo(1);
            assertInvariants(activityId, true);
        }
    }
}
