package io.seckill.mq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.seckill.api.Tokens;
import io.seckill.cli.SaleClient;
import io.seckill.engines.AppProcess;
import io.seckill.engines.BrokerProcess;
import io.seckill.support.ChildSales;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TestChildApps;
import io.seckill.support.TestEngines;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * RocketMQ's access control (ACL 2.0) on the brokers: the engine signs every client request with the credentials it
 * is configured with ({@code seckill.mq.access-key}, {@code seckill.mq.secret-key} - the secret from the
 * environment), so a broker that refuses anonymous clients serves its sale, while a process without them can
 * neither publish an order request nor read the queues.
 */
class BrokerAclIT {

    private static final String USER = "seckill-engine";

    @Test
    @DisplayName("a broker that requires credentials: the engine configured with them sells (reservations become "
            + "orders, the projection follows, the DLQ is read); a producer without them is refused, one with a "
            + "wrong secret too")
    void engineSignsAndStrangersAreRefused() throws Exception {
        String secret = "acl-"
                + HexFormat.of()
                        .formatHex(UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8))
                        .substring(0, 32);
        Path home = Files.createTempDirectory("seckill-broker-acl");
        try (BrokerProcess broker = new BrokerProcess(
                        home, BrokerProcess.locateBrokerHome(), BrokerProcess.SHORT_DELAY_LEVELS)
                .requiringCredentials(USER, secret)) {
            broker.start();
            Map<String, String> p = TestChildApps.properties("acl");
            p.put("seckill.mq.namesrv", broker.namesrvAddress());
            p.put("seckill.mq.access-key", USER);
            p.put("seckill.mq.secret-key", secret);
            JdbcTemplate jdbc = new JdbcTemplate(
                    new DriverManagerDataSource(TestEngines.get().jdbcUrl(), "postgres", "postgres"));
            long activityId = 700_000_000L + ThreadLocalRandom.current().nextLong(1_000_000) * 100;
            try (AppProcess app = new AppProcess(p, Path.of("target", "acl-logs"))) {
                app.start();
                ChildSales.open(app.apiClient(), app.apiClient(), activityId, 5, 900, 1);
                for (long user = 1; user <= 3; user++) {
                    SaleClient.Response r = app.apiClient()
                            .reserve(
                                    Tokens.user(IntegrationTest.USER_SECRET, user, Duration.ofMinutes(10)),
                                    activityId,
                                    1,
                                    UUID.randomUUID().toString());
                    assertThat(r.status()).as(r.body().toString()).isEqualTo(202);
                }
                Awaitility.await("orders through the authenticated broker")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> jdbc.queryForObject(
                                        "SELECT count(*) FROM orders WHERE activity_id = ?", Long.class, activityId)
                                == 3);
                Awaitility.await("the projection consumed the order events")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(500))
                        .untilAsserted(() -> {
                            Map<String, Object> inv = app.apiClient()
                                    .get(
                                            "/api/v1/admin/activities/" + activityId + "/invariants?quiet=true",
                                            ChildSales.admin())
                                    .body();
                            assertThat(inv.get("pass")).as(inv.toString()).isEqualTo(true);
                        });
                SaleClient.Response dlq = app.apiClient().get("/api/v1/admin/dlq", ChildSales.admin());
                assertThat(dlq.status()).as(dlq.body().toString()).isEqualTo(200);
                assertThat(dlq.body()).containsEntry("count", 0);
            }

            assertThatThrownBy(() -> sendWith(broker, null))
                    .as("no credentials")
                    .hasStackTraceContaining("username cannot be null");
            assertThatThrownBy(() ->
                            sendWith(broker, new AclClientRPCHook(new SessionCredentials(USER, secret + "-wrong"))))
                    .as("a wrong secret")
                    .hasStackTraceContaining("check signature failed");
            assertThat(sendWith(broker, new AclClientRPCHook(new SessionCredentials(USER, secret))))
                    .isEqualTo(SendStatus.SEND_OK);
        }
    }

    /** One order request sent to the broker's order topic by a producer of its own, signed with {@code hook} or not. */
    private static SendStatus sendWith(BrokerProcess broker, AclClientRPCHook hook) throws Exception {
        DefaultMQProducer producer = MqClients.producer(broker.namesrvAddress(), Duration.ofSeconds(3), hook);
        try {
            return producer.send(
                            new Message("SECKILL_ORDER_REQUEST", "a stranger's order".getBytes(StandardCharsets.UTF_8)))
                    .getSendStatus();
        } finally {
            producer.shutdown();
        }
    }
}
