package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.engines.BrokerProcess;
import io.seckill.engines.EmbeddedEngines;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TestEngines;
import io.seckill.worker.RoleLifecycle;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.rocketmq.common.message.MessageQueue;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfiguration;

/**
 * A RocketMQ cluster of two brokers (two broker names, one NameServer): the order-request and event
 * topics have queues on both, and one broker killed with kill -9 mid-sale loses nothing - what it held
 * is consumed after it comes back, new sends go to the live one meanwhile. This context has topics and
 * groups of its own, created on both brokers at start-up. Slow suite: it runs a second broker JVM.
 */
@Tag("slow")
@ContextConfiguration(initializers = TwoBrokersIT.SecondBroker.class)
class TwoBrokersIT extends IntegrationTest {

    private static final Logger log = LoggerFactory.getLogger(TwoBrokersIT.class);
    private static final String REQUESTS = "SECKILL_ORDER_REQUEST_TWO_BROKERS";
    private static final String EVENTS = "SECKILL_ORDER_EVENT_TWO_BROKERS";
    private static BrokerProcess brokerB;

    @Autowired
    ApplicationContext context;

    /** Starts broker b beside the engines' broker a before the application (and its topology) starts. */
    static final class SecondBroker implements ApplicationContextInitializer<ConfigurableApplicationContext> {
        @Override
        public void initialize(ConfigurableApplicationContext app) {
            try {
                if (brokerB == null) {
                    brokerB = BrokerProcess.joining(
                            Files.createTempDirectory("seckill-broker-b"),
                            BrokerProcess.locateBrokerHome(),
                            BrokerProcess.SHORT_DELAY_LEVELS,
                            "seckill-broker-b",
                            TestEngines.get().broker().namesrvAddress());
                    // the cluster's brokers accept the same user
                    EmbeddedEngines.BrokerUser user = TestEngines.get().brokerUser();
                    if (user != null) {
                        brokerB.requiringCredentials(user.accessKey(), user.secretKey());
                    }
                    brokerB.start();
                }
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the second broker", e);
            }
            app.getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource(
                            "two-brokers",
                            Map.of(
                                    "seckill.mq.order-request-topic",
                                    REQUESTS,
                                    "seckill.mq.order-event-topic",
                                    EVENTS,
                                    "seckill.mq.order-consumer-group",
                                    "seckill-order-consumer-two-brokers",
                                    "seckill.mq.projection-group",
                                    "seckill-projection-two-brokers")));
        }
    }

    @AfterAll
    static void stopBrokerB() throws InterruptedException {
        if (brokerB != null) {
            brokerB.close();
        }
    }

    @Test
    @DisplayName("the order-request and event topics have writable queues on both brokers")
    void topicsOnBothBrokers() throws Exception {
        for (String topic : List.of(REQUESTS, EVENTS)) {
            assertThat(brokers(producer.fetchPublishMessageQueues(topic)))
                    .as(topic)
                    .containsExactly("seckill-broker-a", "seckill-broker-b");
        }
    }

    @Test
    @DisplayName(
            "fault #2 on a two-broker cluster: broker b killed (kill -9) holding unconsumed order requests; sales go on "
                    + "through broker a, and after b's restart on its store every QUEUED reservation becomes one order")
    void brokerKilledWithMessagesOnIt() throws Exception {
        long activityId = openSale(400);
        RoleLifecycle consumer = context.getBean("orderConsumer", RoleLifecycle.class);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        // the consumer stands still while the first buyers' requests land on both brokers
        consumer.stop();
        try {
            for (int u = 1; u <= 120; u++) {
                assertThat(reserve(u, activityId, 1).status()).isEqualTo(202);
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> redis.sync().zcard(slot.sendDue()) == 0);
            brokerB.kill();
        } finally {
            consumer.start();
        }
        // what broker a holds is consumed; what broker b holds waits for it
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> orders(activityId) > 0);
        Awaitility.await()
                .during(Duration.ofSeconds(5))
                .atMost(Duration.ofSeconds(10))
                .until(() -> orders(activityId) < 120);
        long whileDown = orders(activityId);
        log.info("two_brokers.b_down orders={} of 120", whileDown);
        assertThat(whileDown).as("orders created from broker a's queues alone").isBetween(1L, 119L);

        // new buyers while b is down: their requests go to a and become orders now
        for (int u = 121; u <= 180; u++) {
            assertThat(reserve(u, activityId, 1).status())
                    .as("admission while broker b is down")
                    .isEqualTo(202);
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .until(() ->
                        count("SELECT count(*) FROM orders WHERE activity_id = ? AND user_id > 120", activityId) == 60);
        assertThat(orders(activityId)).as("broker b's requests still wait").isLessThan(180);

        brokerB.start();
        Awaitility.await()
                .atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> orders(activityId) == 180);
        awaitSettled(activityId, 180);
        assertThat(count("SELECT count(DISTINCT user_id) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(180);
        assertInvariants(activityId, true);
    }

    private long orders(long activityId) {
        return count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId);
    }

    private static Set<String> brokers(List<MessageQueue> queues) {
        Set<String> out = new TreeSet<>();
        new ArrayList<>(queues).forEach(q -> out.add(q.getBrokerName()));
        return out;
    }
}
