package io.seckill.mq;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.remoting.protocol.admin.OffsetWrapper;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.springframework.stereotype.Component;

import io.seckill.config.SeckillProperties;

/**
 * How far behind a consumer group is, by age (DESIGN.md §11.3 point 7: the oldest message, not the
 * count): for every queue with a backlog, the store time of the first message the group has not
 * consumed is read from the broker.
 */
@Component
public final class BrokerBacklog implements AutoCloseable {

    private final String namesrv;
    private DefaultMQProducer admin;
    private DefaultLitePullConsumer reader;

    BrokerBacklog(SeckillProperties props) {
        this.namesrv = props.mq().namesrv();
    }

    /** The clients start on the first reading, so an instance that never asks opens no connection. */
    private void start() throws MQClientException {
        if (admin != null) {
            return;
        }
        DefaultMQProducer a = new DefaultMQProducer("seckill-backlog-admin");
        a.setNamesrvAddr(namesrv);
        a.setInstanceName(MqClients.instanceName("backlog-admin"));
        DefaultLitePullConsumer r = new DefaultLitePullConsumer("seckill-backlog-reader-" + UUID.randomUUID());
        r.setNamesrvAddr(namesrv);
        r.setInstanceName(MqClients.instanceName("backlog-reader"));
        r.setAutoCommit(false);
        r.setPullBatchSize(1);
        a.start();
        try {
            r.start();
        } catch (MQClientException e) {
            a.shutdown();
            throw e;
        }
        admin = a;
        reader = r;
    }

    /**
     * Age in ms of the oldest message of any of {@code topics} that {@code group} has not consumed; 0
     * when none. A topic the broker does not have (a retry topic before the first redelivery) holds none.
     * Throws when the age cannot be known (a broker that does not answer, an unconsumed message that
     * cannot be read in time): an unknown backlog is never reported as an empty one.
     */
    public synchronized long oldestUnconsumedAgeMs(String group, String... topics) throws Exception {
        start();
        long oldest = Long.MAX_VALUE;
        for (String topic : topics) {
            oldest = Math.min(oldest, oldestStoreTime(group, topic));
        }
        return oldest == Long.MAX_VALUE ? 0 : Math.max(0, System.currentTimeMillis() - oldest);
    }

    private long oldestStoreTime(String group, String topic) throws Exception {
        MQClientAPIImpl api = admin.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl();
        TopicRouteData route;
        try {
            route = api.getTopicRouteInfoFromNameServer(topic, 3_000);
        } catch (MQClientException e) {
            if (e.getResponseCode() == ResponseCode.TOPIC_NOT_EXIST) {
                return Long.MAX_VALUE;
            }
            throw e;
        }
        long oldest = Long.MAX_VALUE;
        for (BrokerData broker : route.getBrokerDatas()) {
            String addr = broker.getBrokerAddrs().get(MixAll.MASTER_ID);
            if (addr == null) {
                continue;
            }
            ConsumeStats stats = api.getConsumeStats(addr, group, topic, 3_000);
            for (Map.Entry<MessageQueue, OffsetWrapper> e : stats.getOffsetTable().entrySet()) {
                OffsetWrapper w = e.getValue();
                if (w.getBrokerOffset() > w.getConsumerOffset()) {
                    long offset = Math.max(0, w.getConsumerOffset());
                    Long stored = storeTime(e.getKey(), offset);
                    if (stored == null) {
                        // a backlog whose age cannot be read is unknown, never "none": each caller has its rule for it
                        throw new IllegalStateException("the oldest unconsumed message of " + e.getKey() + " (offset "
                                + offset + ", group " + group + ") could not be read within 2 s");
                    }
                    oldest = Math.min(oldest, stored);
                }
            }
        }
        return oldest;
    }

    private Long storeTime(MessageQueue queue, long offset) throws MQClientException {
        reader.assign(List.of(queue));
        reader.seek(queue, offset);
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (MessageExt m : reader.poll(200)) {
                // the reader may still hand out what it fetched for this queue before the seek: an older message,
                // whose store time would age the backlog by however long ago that reading was
                if (m.getQueueId() == queue.getQueueId() && m.getBrokerName().equals(queue.getBrokerName())
                        && m.getQueueOffset() >= offset) {
                    return m.getStoreTimestamp();
                }
            }
        }
        return null;
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            reader.shutdown();
            admin.shutdown();
            admin = null;
        }
    }
}
