package io.seckill.mq;

import io.seckill.config.SeckillProperties;
import io.seckill.worker.RoleLifecycle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The broker-side shape the pipeline needs before a sale can take buyers: the order request and
 * order event topics with writable routes on every master, and the two consumer groups with the
 * configured redelivery bound (and the group backlog readings pull as). Without them the first
 * sends of a sale wait for the broker to auto-create the topic (if it may at all), the send-due
 * rescan re-sends what is only slow and the entry breaker trips at the busiest second. Ensured at
 * start-up and at warm-up; checked before a sale opens and by the readiness probe ({@code sendPath}
 * health contributor).
 */
@Component("sendPath")
public class MqTopology implements HealthIndicator, SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(MqTopology.class);
    private static final long TIMEOUT_MS = 3_000;
    private static final Duration ROUTE_WAIT = Duration.ofSeconds(15);

    private final DefaultMQProducer producer;
    private final SeckillProperties.Mq mq;
    private volatile boolean running;

    public MqTopology(DefaultMQProducer producer, SeckillProperties props) {
        this.producer = producer;
        this.mq = props.mq();
    }

    /** Creates what is missing and waits (bounded) until every topic has a writable route; throws if it cannot. */
    public void ensure() {
        try {
            MQClientAPIImpl api = api();
            ClusterInfo cluster = api.getBrokerClusterInfo(TIMEOUT_MS);
            List<String> masters = masters(cluster);
            if (masters.isEmpty()) {
                throw new NotReady("no broker master is registered at the NameServer " + mq.namesrv());
            }
            for (String addr : masters) {
                for (Map.Entry<String, Integer> topic : queueCounts().entrySet()) {
                    ensureQueues(api, addr, topic.getKey(), topic.getValue());
                }
                for (String group : groups()) {
                    SubscriptionGroupConfig g = new SubscriptionGroupConfig();
                    g.setGroupName(group);
                    g.setRetryMaxTimes(mq.maxReconsumeTimes());
                    api.createSubscriptionGroup(addr, g, TIMEOUT_MS);
                }
            }
        } catch (NotReady e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NotReady("interrupted while creating topics");
        } catch (Exception e) {
            throw new NotReady("cannot create topics and groups at " + mq.namesrv() + ": "
                    + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        long deadline = System.nanoTime() + ROUTE_WAIT.toNanos();
        List<String> problems = problems();
        while (!problems.isEmpty() && System.nanoTime() < deadline) {
            try {
                TimeUnit.MILLISECONDS.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            problems = problems();
        }
        if (!problems.isEmpty()) {
            throw new NotReady(String.join("; ", problems));
        }
        log.info("mq.topology_ready namesrv={} topics={} groups={}", mq.namesrv(), topics(), groups());
    }

    /** What stops the send path now: topics without a writable route, or an unreachable NameServer. Empty = ready. */
    public List<String> problems() {
        List<String> out = new ArrayList<>();
        for (String topic : topics()) {
            try {
                TopicRouteData route = api().getTopicRouteInfoFromNameServer(topic, TIMEOUT_MS);
                int writable = 0;
                for (QueueData q : route.getQueueDatas()) {
                    if (PermName.isWriteable(q.getPerm())) {
                        writable += q.getWriteQueueNums();
                    }
                }
                if (writable == 0) {
                    out.add("topic " + topic + " has no writable queue");
                }
            } catch (MQClientException e) {
                out.add(
                        e.getResponseCode() == ResponseCode.TOPIC_NOT_EXIST
                                ? "topic " + topic + " does not exist"
                                : "topic " + topic + ": " + e.getErrorMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                out.add("interrupted");
                return out;
            } catch (Exception e) {
                out.add("topic " + topic + ": NameServer " + mq.namesrv() + " unreachable ("
                        + e.getClass().getSimpleName() + ")");
            }
        }
        return out;
    }

    @Override
    public Health health() {
        List<String> problems = problems();
        return problems.isEmpty()
                ? Health.up().withDetail("topics", topics()).build()
                : Health.outOfService().withDetail("problems", problems).build();
    }

    /** At start-up: create what is missing; a broker that is not there yet leaves readiness down, not the process. */
    @Override
    public void start() {
        running = true;
        try {
            ensure();
        } catch (NotReady e) {
            log.warn("mq.topology_not_ready {}: sales cannot be warmed or opened until it is", e.getMessage());
        }
    }

    @Override
    public void stop() {
        running = false;
    }

    /**
     * Before the roles: a consumer that subscribes to a topic not created yet finds no queue until the
     * client's next rebalance (20 s), and the first orders of a sale would wait for it.
     */
    @Override
    public int getPhase() {
        return RoleLifecycle.PHASE - 100;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Gives {@code topic} on the broker at {@code addr} at least {@code queues} read and write queues: creates it,
     * or raises a count below the configured one. A broker's count above it (an operator's increase for more
     * consumers) is left as it is: the application never takes queues away, whose messages would then wait on
     * queues nobody reads.
     */
    private static void ensureQueues(MQClientAPIImpl api, String addr, String topic, int queues) throws Exception {
        int existing = existingQueues(api, addr, topic);
        if (existing >= queues) {
            if (existing > queues) {
                log.info(
                        "mq.topic_queues_kept topic={} broker={} queues={} configured={}",
                        topic,
                        addr,
                        existing,
                        queues);
            }
            return;
        }
        api.createTopic(
                addr,
                TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC,
                new TopicConfig(topic, queues, queues, PermName.PERM_READ | PermName.PERM_WRITE),
                TIMEOUT_MS);
        if (existing > 0) {
            log.warn("mq.topic_queues_raised topic={} broker={} from={} to={}", topic, addr, existing, queues);
        }
    }

    /** The larger of the topic's read and write queue counts on that broker; 0 when the broker lacks the topic. */
    private static int existingQueues(MQClientAPIImpl api, String addr, String topic) throws Exception {
        try {
            TopicConfig c = api.getTopicConfig(addr, topic, TIMEOUT_MS);
            return c == null ? 0 : Math.max(c.getReadQueueNums(), c.getWriteQueueNums());
        } catch (MQBrokerException e) {
            if (e.getResponseCode() == ResponseCode.TOPIC_NOT_EXIST) {
                return 0;
            }
            throw e;
        }
    }

    /** Each topic and the queues it must have at least on every broker ({@code seckill.mq.order-queues}, ...). */
    private Map<String, Integer> queueCounts() {
        Map<String, Integer> out = new LinkedHashMap<>();
        out.put(mq.orderRequestTopic(), mq.orderQueues());
        out.put(mq.orderEventTopic(), mq.eventQueues());
        return out;
    }

    private List<String> topics() {
        return List.of(mq.orderRequestTopic(), mq.orderEventTopic());
    }

    /** The two consumer groups, and the one the backlog readings pull as. */
    private List<String> groups() {
        return List.of(mq.orderConsumerGroup(), mq.projectionGroup(), BrokerBacklog.READER_GROUP);
    }

    private MQClientAPIImpl api() {
        return producer.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl();
    }

    private static List<String> masters(ClusterInfo cluster) {
        List<String> out = new ArrayList<>();
        Map<String, BrokerData> brokers = cluster.getBrokerAddrTable();
        if (brokers != null) {
            for (BrokerData b : brokers.values()) {
                String addr = b.getBrokerAddrs().get(MixAll.MASTER_ID);
                if (addr != null) {
                    out.add(addr);
                }
            }
        }
        return out;
    }

    /** The send path cannot carry a sale: what is missing, in words an operator can act on. */
    public static final class NotReady extends RuntimeException {
        public NotReady(String message) {
            super(message);
        }
    }
}
