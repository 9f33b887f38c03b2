package io.seckill.mq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.seckill.cli.SaleClient;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TestEngines;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * RocketMQ's access control (ACL 2.0) on the brokers: the engine signs every client request with the credentials it
 * is configured with ({@code seckill.mq.access-key}, {@code seckill.mq.secret-key} - the secret from the
 * environment), so a broker that refuses anonymous clients serves its sale, while a process without them can
 * neither publish an order request nor read the queues. The tests' broker is such a broker ({@link TestEngines}):
 * every integration test sells through it.
 */
class BrokerAclIT extends IntegrationTest {

    @Test
    @DisplayName("a broker that requires credentials: the engine configured with them sells (reservations become "
            + "orders, the projection follows, the DLQ is read); a producer without them is refused, one with a "
            + "wrong secret too")
    void engineSignsAndStrangersAreRefused() throws Exception {
        assertThat(props.mq().authenticated())
                .as("the tests' broker asks for credentials and the application has them")
                .isTrue();
        long activityId = openSale(5);
        List<String> reservations = new ArrayList<>();
        for (long user = 1; user <= 3; user++) {
            reservations.add(reservationId(user, activityId));
        }
        awaitEnded(activityId, reservations);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .as("orders through the authenticated broker")
                .isEqualTo(3);
        Awaitility.await("the projection consumed the order events")
                .atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertInvariants(activityId, true));
        SaleClient.Response dlq = client().get("/api/v1/admin/dlq", viewToken());
        assertThat(dlq.status()).as(dlq.body().toString()).isEqualTo(200);

        assertThatThrownBy(() -> sendWith(null))
                .as("no credentials")
                .hasStackTraceContaining("username cannot be null");
        assertThatThrownBy(() -> sendWith(new AclClientRPCHook(new SessionCredentials(
                        props.mq().accessKey(), props.mq().secretKey() + "-wrong"))))
                .as("a wrong secret")
                .hasStackTraceContaining("check signature failed");
        assertThatThrownBy(() -> sendWith(new AclClientRPCHook(
                        new SessionCredentials("someone-else", props.mq().secretKey()))))
                .as("another user with the engine's secret")
                .hasStackTraceContaining("User:someone-else is not found");
        assertThat(sendWith(new AclClientRPCHook(new SessionCredentials(
                        props.mq().accessKey(), props.mq().secretKey()))))
                .isEqualTo(SendStatus.SEND_OK);
    }

    /** A message to a topic no consumer reads, by a producer of its own, signed with {@code hook} or not. */
    private static SendStatus sendWith(AclClientRPCHook hook) throws Exception {
        DefaultMQProducer producer =
                MqClients.producer(TestEngines.get().namesrvAddress(), Duration.ofSeconds(3), hook);
        try {
            return producer.send(
                            new Message("SECKILL_ACL_PROBE", "a stranger's message".getBytes(StandardCharsets.UTF_8)))
                    .getSendStatus();
        } finally {
            producer.shutdown();
        }
    }
}
