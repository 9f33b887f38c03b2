package io.seckill.mq;

import io.seckill.config.SeckillProperties;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.CommunicationMode;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.impl.consumer.PullResultExt;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.filter.ExpressionType;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.sysflag.PullSysFlag;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.remoting.protocol.admin.OffsetWrapper;
import org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.springframework.stereotype.Component;

/**
 * How far behind a consumer group is, by age (DESIGN.md §11.3 point 7: the oldest message, not the
 * count): for every queue with a backlog, the store time of the first message the group has not
 * consumed is read from the broker with one pull of exactly that offset.
 */
@Component
public final class BrokerBacklog implements AutoCloseable {

    /** The group the offset reads pull as (no offset of its own is ever committed); created with the others. */
    public static final String READER_GROUP = "seckill-backlog-reader";

    private static final long TIMEOUT_MS = 3_000;
    /** Pull with the subscription in the request ("*"), no suspension, no offset commit. */
    private static final int PULL_FLAGS = PullSysFlag.buildSysFlag(false, false, true, false);

    private final String namesrv;
    private final SeckillProperties.Mq mq;
    private final Clock clock;
    private DefaultMQProducer admin;

    BrokerBacklog(SeckillProperties props, Clock clock) {
        this.namesrv = props.mq().namesrv();
        this.mq = props.mq();
        this.clock = clock;
    }

    /** The client starts on the first reading, so an instance that never asks opens no connection. */
    private MQClientAPIImpl api() throws MQClientException {
        if (admin == null) {
            DefaultMQProducer a = new DefaultMQProducer("seckill-backlog-admin", MqClients.credentials(mq));
            a.setNamesrvAddr(namesrv);
            a.setInstanceName(MqClients.instanceName("backlog-admin"));
            a.start();
            admin = a;
        }
        return admin.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl();
    }

    /**
     * Age in ms of the oldest message of any of {@code topics} that {@code group} has not consumed; 0
     * when none. A topic the broker does not have (a retry topic before the first redelivery) holds none.
     * Throws when the age cannot be known (a broker that does not answer, an unconsumed message that
     * cannot be read): an unknown backlog is never reported as an empty one.
     */
    public long oldestUnconsumedAgeMs(String group, String... topics) throws Exception {
        return read(group, topics).ageMs();
    }

    /**
     * A consumer group's backlog over some topics at one moment: {@code ageMs} of the oldest message it
     * has not consumed (0 when none), and the offsets summed over every queue of the topics -
     * {@code produced} the broker's (messages stored), {@code consumed} the group's (messages it has
     * acknowledged). Two readings give the rates at which messages arrive and are settled.
     */
    public record Backlog(long ageMs, long produced, long consumed) {}

    /**
     * The backlog of {@code group} over {@code topics}; a topic the broker does not have (a retry topic
     * before the first redelivery) holds none. Throws when it cannot be known (a broker that does not
     * answer, an unconsumed message that cannot be read): an unknown backlog is never reported as an
     * empty one.
     */
    public synchronized Backlog read(String group, String... topics) throws Exception {
        MQClientAPIImpl api = api();
        long[] oldest = {Long.MAX_VALUE};
        long[] produced = {0};
        long[] consumed = {0};
        forEachQueue(api, group, topics, (addr, queue, w) -> {
            long at = Math.max(0, w.getConsumerOffset());
            produced[0] += w.getBrokerOffset();
            consumed[0] += Math.min(at, w.getBrokerOffset());
            if (w.getBrokerOffset() > at) {
                oldest[0] = Math.min(oldest[0], storeTime(api, addr, queue, at, group));
            }
        });
        long age = oldest[0] == Long.MAX_VALUE ? 0 : Math.max(0, clock.millis() - oldest[0]);
        return new Backlog(age, produced[0], consumed[0]);
    }

    /**
     * Where every queue of {@code topics} ends now (the broker's offset): marks that {@link #behind} compares the
     * group's progress with - no clock involved, so "everything stored before this moment" is exact.
     */
    public synchronized Map<MessageQueue, Long> ends(String group, String... topics) throws Exception {
        Map<MessageQueue, Long> out = new HashMap<>();
        forEachQueue(api(), group, topics, (addr, queue, w) -> out.put(queue, w.getBrokerOffset()));
        return out;
    }

    /**
     * How many messages stored before {@code marks} were taken ({@link #ends}) {@code group} has not consumed yet;
     * 0 once it has consumed up to every mark. A queue that has gone (a broker away) throws: unknown is never none.
     */
    public synchronized long behind(String group, Map<MessageQueue, Long> marks, String... topics) throws Exception {
        Map<MessageQueue, Long> remaining = new HashMap<>(marks);
        long[] behind = {0};
        forEachQueue(api(), group, topics, (addr, queue, w) -> {
            Long mark = remaining.remove(queue);
            if (mark != null) {
                behind[0] += Math.max(0, mark - Math.max(0, w.getConsumerOffset()));
            }
        });
        if (!remaining.isEmpty()) {
            throw new IllegalStateException("queues not answering: " + remaining.keySet());
        }
        return behind[0];
    }

    /**
     * How many messages bound for {@code realTopic} wait in the brokers' delay queues now: a consume that failed
     * sends its message back, and it sits in the broker's schedule topic until its redelivery into the group's retry
     * topic - on neither the topic nor the retry topic the group's offsets cover. Every master serving one of
     * {@code routeTopics} is asked (its runtime info gives each delay level's delivered offset and end); the
     * messages between them are read and counted by the topic they will be delivered to. A broker that does not
     * answer throws: unknown is never none.
     */
    public synchronized long delayed(String realTopic, String... routeTopics) throws Exception {
        MQClientAPIImpl api = api();
        long found = 0;
        for (String addr : masters(api, routeTopics)) {
            Map<String, String> info =
                    api.getBrokerRuntimeInfo(addr, TIMEOUT_MS).getTable();
            for (Map.Entry<String, String> e : info.entrySet()) {
                if (!e.getKey().startsWith(DELAY_OFFSET_KEY)) {
                    continue;
                }
                int level = Integer.parseInt(e.getKey().substring(DELAY_OFFSET_KEY.length()));
                String[] at = e.getValue().split(",");
                long delivered = Long.parseLong(at[0].trim());
                long end = Long.parseLong(at[1].trim());
                if (end > delivered) {
                    MessageQueue queue = new MessageQueue(TopicValidator.RMQ_SYS_SCHEDULE_TOPIC, "", level - 1);
                    found += countBoundFor(api, addr, queue, delivered, end, realTopic);
                }
            }
        }
        return found;
    }

    /** Runtime-info keys of the delay levels: {@code scheduleMessageOffset_<level>} = "delivered,end". */
    private static final String DELAY_OFFSET_KEY = "scheduleMessageOffset_";

    private static long countBoundFor(
            MQClientAPIImpl api, String addr, MessageQueue queue, long from, long end, String realTopic)
            throws Exception {
        long found = 0;
        long at = from;
        while (at < end) {
            PullMessageRequestHeader h = pullAt(queue, at);
            h.setMaxMsgNums(DELAY_PULL);
            PullResult r = api.pullMessage(addr, h, TIMEOUT_MS, CommunicationMode.SYNC, null);
            if (r.getPullStatus() == PullStatus.OFFSET_ILLEGAL && r.getNextBeginOffset() > at) {
                // delivered and deleted meanwhile
                at = r.getNextBeginOffset();
                continue;
            }
            if (r.getPullStatus() != PullStatus.FOUND || !(r instanceof PullResultExt ext)) {
                if (r.getPullStatus() == PullStatus.NO_NEW_MSG) {
                    return found;
                }
                throw new IllegalStateException("the delay queue " + queue.getQueueId() + " of " + addr
                        + " could not be read: " + r.getPullStatus());
            }
            for (MessageExt m : MessageDecoder.decodes(ByteBuffer.wrap(ext.getMessageBinary()), false)) {
                if (m.getQueueOffset() >= at
                        && m.getQueueOffset() < end
                        && realTopic.equals(m.getProperty(MessageConst.PROPERTY_REAL_TOPIC))) {
                    found++;
                }
            }
            if (r.getNextBeginOffset() <= at) {
                throw new IllegalStateException(
                        "the delay queue " + queue.getQueueId() + " of " + addr + " did not move");
            }
            at = r.getNextBeginOffset();
        }
        return found;
    }

    /** Messages read per pull of a delay queue. */
    private static final int DELAY_PULL = 32;

    /** The master brokers serving any of {@code topics}. */
    private static Set<String> masters(MQClientAPIImpl api, String... topics) throws Exception {
        Set<String> out = new TreeSet<>();
        for (String topic : topics) {
            TopicRouteData route;
            try {
                route = api.getTopicRouteInfoFromNameServer(topic, TIMEOUT_MS);
            } catch (MQClientException e) {
                if (e.getResponseCode() == ResponseCode.TOPIC_NOT_EXIST) {
                    continue;
                }
                throw e;
            }
            for (BrokerData broker : route.getBrokerDatas()) {
                String addr = broker.getBrokerAddrs().get(MixAll.MASTER_ID);
                if (addr != null) {
                    out.add(addr);
                }
            }
        }
        return out;
    }

    private interface QueueVisitor {
        void visit(String brokerAddr, MessageQueue queue, OffsetWrapper offsets) throws Exception;
    }

    /** The group's offsets on every queue of the topics, from each master; a topic the broker lacks has none. */
    private static void forEachQueue(MQClientAPIImpl api, String group, String[] topics, QueueVisitor visitor)
            throws Exception {
        for (String topic : topics) {
            for (String addr : masters(api, topic)) {
                ConsumeStats stats = api.getConsumeStats(addr, group, topic, TIMEOUT_MS);
                for (Map.Entry<MessageQueue, OffsetWrapper> e :
                        stats.getOffsetTable().entrySet()) {
                    visitor.visit(addr, e.getKey(), e.getValue());
                }
            }
        }
    }

    /**
     * The store time of the message at {@code offset} of {@code queue}, or of the first one still stored
     * when the broker has already deleted that offset's (retention).
     */
    private static long storeTime(MQClientAPIImpl api, String addr, MessageQueue queue, long offset, String group)
            throws Exception {
        long at = offset;
        for (int tries = 0; tries < 2; tries++) {
            PullResult r = api.pullMessage(addr, pullAt(queue, at), TIMEOUT_MS, CommunicationMode.SYNC, null);
            if (r.getPullStatus() == PullStatus.FOUND && r instanceof PullResultExt ext) {
                for (MessageExt m : MessageDecoder.decodes(ByteBuffer.wrap(ext.getMessageBinary()), false)) {
                    if (m.getQueueOffset() >= at) {
                        return m.getStoreTimestamp();
                    }
                }
            }
            if (r.getPullStatus() != PullStatus.OFFSET_ILLEGAL || r.getNextBeginOffset() <= at) {
                // a backlog whose age cannot be read is unknown, never "none": each caller has its rule for it
                throw new IllegalStateException("the oldest unconsumed message of " + queue + " (offset " + offset
                        + ", group " + group + ") could not be read: " + r.getPullStatus());
            }
            at = r.getNextBeginOffset();
        }
        throw new IllegalStateException("the oldest unconsumed message of " + queue + " (offset " + offset + ", group "
                + group + ") moved while it was read");
    }

    private static PullMessageRequestHeader pullAt(MessageQueue queue, long offset) {
        PullMessageRequestHeader h = new PullMessageRequestHeader();
        h.setConsumerGroup(READER_GROUP);
        h.setTopic(queue.getTopic());
        h.setQueueId(queue.getQueueId());
        h.setQueueOffset(offset);
        h.setMaxMsgNums(1);
        h.setSysFlag(PULL_FLAGS);
        h.setCommitOffset(0L);
        h.setSuspendTimeoutMillis(0L);
        h.setSubscription("*");
        h.setSubVersion(0L);
        h.setExpressionType(ExpressionType.TAG);
        return h;
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.shutdown();
            admin = null;
        }
    }
}
