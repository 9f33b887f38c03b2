package io.seckill.activity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.seckill.cli.SaleClient;
import io.seckill.config.SeckillProperties;
import io.seckill.mq.MqClients;
import io.seckill.mq.MqTopology;
import io.seckill.refusal.Refusal;
import io.seckill.support.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Status;

/**
 * Issue: a sale opening tripped the entry breaker because the order topic did not exist yet. Topics
 * and groups are created before a sale can take buyers; open is refused while they cannot take
 * messages, and readiness says so.
 */
class SendPathReadinessIT extends IntegrationTest {

    @Autowired
    ActivityRepository activityRepository;

    @Autowired
    InventoryRepository inventory;

    @Autowired
    SaleRegistry registry;

    @Test
    @DisplayName("topics missing on the broker: named as problems, created by ensure, then routable")
    void missingTopicsAreCreated() {
        MqTopology fresh = freshTopology();
        assertThat(fresh.problems()).hasSize(2).allSatisfy(p -> assertThat(p).contains("does not exist"));
        assertThat(fresh.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);

        fresh.ensure();

        assertThat(fresh.problems()).isEmpty();
        assertThat(fresh.health().getStatus()).isEqualTo(Status.UP);
    }

    @Test
    @DisplayName("queue counts are configuration the application never reduces: an operator's increase survives a "
            + "restart's ensure, a configured count above the broker's raises it")
    void queueCountsAreNeverReduced() throws Exception {
        String suffix = Long.toString(System.nanoTime(), 36).toUpperCase();
        String topic = "T_REQ_" + suffix;
        topology(suffix, 4).ensure();
        MQClientAPIImpl api =
                producer.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl();
        List<String> masters = masters(api);
        assertThat(masters).isNotEmpty();
        for (String addr : masters) {
            assertThat(queues(api, addr, topic)).isEqualTo(4);
            // the operator adds queues for more order consumers
            api.createTopic(addr, TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, new TopicConfig(topic, 8, 8, 6), 3_000);
        }

        topology(suffix, 4).ensure();
        for (String addr : masters) {
            assertThat(queues(api, addr, topic)).as("kept at the operator's 8").isEqualTo(8);
        }

        topology(suffix, 12).ensure();
        for (String addr : masters) {
            assertThat(queues(api, addr, topic))
                    .as("raised to the configured 12")
                    .isEqualTo(12);
        }
    }

    @Test
    @DisplayName(
            "more order consumers than four queues: with seckill.mq.order-queues=8, six consumers of one group built "
                    + "as the engine builds its consumers each hold queues of their own and each receives messages")
    void moreQueuesServeMoreConsumers() throws Exception {
        String suffix = Long.toString(System.nanoTime(), 36).toUpperCase();
        MqTopology topology = topology(suffix, 8);
        topology.ensure();
        String topic = "T_REQ_" + suffix;
        String group = "g-order-" + suffix;
        int consumers = 6;
        List<DefaultMQPushConsumer> group6 = new ArrayList<>();
        Map<Integer, Set<Integer>> received = new ConcurrentHashMap<>();
        try {
            for (int i = 0; i < consumers; i++) {
                int index = i;
                DefaultMQPushConsumer c = MqClients.pushConsumer(props, group, "order-consumer");
                c.subscribe(topic, "*");
                c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
                    msgs.forEach(m -> received.computeIfAbsent(index, k -> ConcurrentHashMap.newKeySet())
                            .add(m.getQueueId()));
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                });
                c.start();
                group6.add(c);
            }
            // the topic's queues as its consumers see them (the route): 8 on each broker that has the topic
            int queues = group6.getFirst().fetchSubscribeMessageQueues(topic).size();
            assertThat(queues).as("queues of the topic").isGreaterThanOrEqualTo(8);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> {
                        // each consumer rebalances on its own every 20 s and when the broker tells it the group
                        // changed; on a loaded machine that notice can come late: ask for the rebalance now
                        group6.forEach(c -> c.getDefaultMQPushConsumerImpl().doRebalance());
                        assertThat(group6.stream().map(c -> assigned(c).size()).toList())
                                .as("queues each of the six consumers holds")
                                .allMatch(n -> n > 0);
                    });
            for (MessageQueue q : producer.fetchPublishMessageQueues(topic)) {
                for (int k = 0; k < 3; k++) {
                    producer.send(new Message(topic, ("m" + k).getBytes(StandardCharsets.UTF_8)), q);
                }
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(received)
                            .as("queue ids each consumer received messages from")
                            .hasSize(consumers));
        } finally {
            group6.forEach(DefaultMQPushConsumer::shutdown);
        }
        assertThat(received).as("queue ids each consumer received from").hasSize(consumers);
    }

    /** The queues a push consumer holds now. */
    private static Set<MessageQueue> assigned(DefaultMQPushConsumer c) {
        return c.getDefaultMQPushConsumerImpl()
                .getRebalanceImpl()
                .getProcessQueueTable()
                .keySet();
    }

    private static int queues(MQClientAPIImpl api, String addr, String topic) throws Exception {
        TopicConfig c = api.getTopicConfig(addr, topic, 3_000);
        assertThat(c.getReadQueueNums()).isEqualTo(c.getWriteQueueNums());
        return c.getWriteQueueNums();
    }

    private static List<String> masters(MQClientAPIImpl api) throws Exception {
        return api.getBrokerClusterInfo(3_000).getBrokerAddrTable().values().stream()
                .map(b -> b.getBrokerAddrs().get(MixAll.MASTER_ID))
                .filter(Objects::nonNull)
                .toList();
    }

    @Test
    @DisplayName(
            "open is refused with 503 SEND_PATH_NOT_READY while the order topics cannot take messages; warm creates them")
    void openRefusedUntilTopicsExist() throws Exception {
        long activityId = newActivityId();
        createSale(activityId, 4);
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/warm", adminToken(), null)
                        .status())
                .isEqualTo(200);
        MqTopology fresh = freshTopology();
        ActivityService service = new ActivityService(activityRepository, inventory, registry, tx, redis, fresh);

        assertThatThrownBy(() -> service.open(activityId)).isInstanceOfSatisfying(Refusal.class, e -> {
            assertThat(e.code()).isEqualTo("SEND_PATH_NOT_READY");
            assertThat(e.kind()).isEqualTo(Refusal.Kind.UNAVAILABLE);
            assertThat(e.getMessage()).contains("does not exist");
        });
        assertThat(jdbc.queryForObject("SELECT status FROM activity WHERE activity_id = ?", String.class, activityId))
                .as("nothing half written")
                .isEqualTo("WARMED");
        assertThat(client().reserve(
                                userToken(1), activityId, 1, UUID.randomUUID().toString())
                        .code())
                .isEqualTo("ACTIVITY_NOT_OPEN");

        service.warm(activityId); // ensures the topics as part of warming
        service.open(activityId);
        assertThat(jdbc.queryForObject("SELECT status FROM activity WHERE activity_id = ?", String.class, activityId))
                .isEqualTo("OPEN");
    }

    @Test
    @DisplayName("readiness follows the roles: with Redis refusing writes the API pod stays ready (its buyers' calls "
            + "fail closed one by one) while /actuator/health shows Redis down; a projection worker's readiness over the "
            + "same checks is out of service, a payment worker's is not")
    void readinessFollowsTheRoles() throws Exception {
        SaleClient.Response up = client().get("/actuator/health/readiness", null);
        assertThat(up.status()).isEqualTo(200);
        assertThat(up.body().toString()).contains("roles");
        assertThat(workerReadiness("projection")).isEqualTo(Status.UP);
        // writes refused as by a Redis that lost its replicas: reads still answer, writes do not
        redis.sync().configSet("min-replicas-to-write", "1");
        try {
            SaleClient.Response ready = client().get("/actuator/health/readiness", null);
            assertThat(ready.status()).as(ready.body().toString()).isEqualTo(200);
            SaleClient.Response health = client().get("/actuator/health", null);
            assertThat(health.body().toString()).contains("redis={status=DOWN}", "db={status=UP}");
            assertThat(workerReadiness("projection")).isEqualTo(Status.OUT_OF_SERVICE);
            assertThat(workerReadiness("payment")).isEqualTo(Status.UP);
        } finally {
            redis.sync().configSet("min-replicas-to-write", "0");
        }
        assertThat(workerReadiness("projection")).isEqualTo(Status.UP);
        assertThat(workerReadiness("order-consumer", "outbox-relay"))
                .as("the send path's routes are readable")
                .isEqualTo(Status.UP);
    }

    private MqTopology freshTopology() {
        return topology(Long.toString(System.nanoTime(), 36).toUpperCase(), 4);
    }

    /** A topology of topics and groups named by {@code suffix}, whose order request topic wants {@code orderQueues}. */
    private MqTopology topology(String suffix, int orderQueues) {
        SeckillProperties.Mq mq = props.mq();
        SeckillProperties.Mq other = new SeckillProperties.Mq(
                mq.namesrv(),
                "T_REQ_" + suffix,
                "T_EVT_" + suffix,
                "g-order-" + suffix,
                "g-proj-" + suffix,
                mq.maxReconsumeTimes(),
                mq.sendTimeout(),
                mq.accessKey(),
                mq.secretKey(),
                orderQueues,
                mq.eventQueues());
        SeckillProperties p = new SeckillProperties(
                props.roles(),
                props.redisUri(),
                props.redisCluster(),
                props.ids(),
                props.jwt(),
                other,
                props.reservation(),
                props.orderConsumer(),
                props.outbox(),
                props.admission(),
                props.deadline(),
                props.payment(),
                props.reconcile());
        return new MqTopology(producer, p);
    }
}
