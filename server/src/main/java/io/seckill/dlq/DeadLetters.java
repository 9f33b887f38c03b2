package io.seckill.dlq;

import io.seckill.mq.MqClients;
import io.seckill.outbox.OutboxEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.RPCHook;

/**
 * A consumer group's dead-letter queue (DESIGN.md §7.3, §15.8): a quarantine waiting for the business
 * to recover, never a terminal state. It can be counted, listed and replayed; a replay re-sends each
 * message to its original topic with its original body, key and business id, so the receiving inbox
 * turns an already-processed one into a harmless duplicate.
 */
public final class DeadLetters implements AutoCloseable {

    private final String namesrv;
    private final RPCHook credentials;
    private final DefaultMQProducer producer;

    /** {@code credentials}: the engine's ACL signature ({@link MqClients#credentials}), or null. */
    public DeadLetters(String namesrv, RPCHook credentials) throws MQClientException {
        this.namesrv = namesrv;
        this.credentials = credentials;
        this.producer = new DefaultMQProducer("seckill-dlq-tool", credentials);
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName(MqClients.instanceName("dlq"));
        producer.start();
    }

    public static String topic(String group) {
        return MixAll.DLQ_GROUP_TOPIC_PREFIX + group;
    }

    /** One dead letter, with what is needed to judge it. */
    public record Letter(
            String brokerMsgId,
            String originalTopic,
            String keys,
            String messageId,
            int reconsumeTimes,
            long storeTimestamp,
            byte[] body,
            MessageExt raw) {}

    /** Messages in the group's DLQ (0 when it has never received one). */
    public long count(String group) {
        long total = 0;
        try {
            for (MessageQueue q : producer.fetchPublishMessageQueues(topic(group))) {
                total += producer.maxOffset(q) - producer.minOffset(q);
            }
        } catch (MQClientException e) {
            // the broker creates the DLQ topic with the first dead letter: no topic yet means none
            String msg = String.valueOf(e.getMessage());
            if (!msg.contains("Can not find Message Queue") && !msg.contains("No route info")) {
                throw new IllegalStateException("cannot read " + topic(group) + ": " + msg, e);
            }
        }
        return total;
    }

    /**
     * Up to {@code max} dead letters, oldest first per queue. Read with explicit pulls from each
     * queue's first to its last offset: deterministic, unlike a lite pull consumer whose background
     * pull may not have fetched anything when the read gives up. The pull consumer is the client's
     * deprecated API; it is the one that reads a queue by offset without a subscription.
     */
    @SuppressWarnings("deprecation")
    public List<Letter> list(String group, int max) throws MQClientException {
        List<Letter> out = new ArrayList<>();
        if (count(group) == 0) {
            return out;
        }
        org.apache.rocketmq.client.consumer.DefaultMQPullConsumer reader =
                new org.apache.rocketmq.client.consumer.DefaultMQPullConsumer(
                        "seckill-dlq-reader-" + UUID.randomUUID(), credentials);
        reader.setNamesrvAddr(namesrv);
        reader.setInstanceName(MqClients.instanceName("dlq-reader"));
        reader.start();
        try {
            for (MessageQueue q : reader.fetchSubscribeMessageQueues(topic(group))) {
                long offset = reader.minOffset(q);
                long end = reader.maxOffset(q);
                while (offset < end && out.size() < max) {
                    PullResult r = reader.pull(q, "*", offset, Math.min(32, max - out.size()), 5_000);
                    if (r.getPullStatus() != PullStatus.FOUND) {
                        break;
                    }
                    r.getMsgFoundList().forEach(m -> out.add(letter(m)));
                    offset = r.getNextBeginOffset();
                }
            }
        } catch (MQClientException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading " + topic(group), e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + topic(group) + ": " + e.getMessage(), e);
        } finally {
            reader.shutdown();
        }
        return out;
    }

    /** Re-sends every dead letter of the group to its original topic; returns how many were re-sent. */
    public int replay(String group, int max) throws Exception {
        return replay(group, max, l -> false);
    }

    /** Re-sends the letters with their original ids, except those {@code skip} names (objects under a manual hold). */
    public int replay(String group, int max, Predicate<Letter> skip) throws Exception {
        return replay(list(group, max), skip);
    }

    /** Re-sends these letters (as {@link #list} read them) with their original ids, except those {@code skip} names. */
    public int replay(List<Letter> letters, Predicate<Letter> skip) throws Exception {
        int sent = 0;
        for (Letter l : letters) {
            if (skip.test(l)) {
                continue;
            }
            Message m = new Message(l.originalTopic(), l.raw().getTags(), l.keys(), l.body());
            if (l.messageId() != null) {
                m.putUserProperty("message_id", l.messageId());
            }
            m.putUserProperty("dlq_replay_of", l.brokerMsgId());
            // an order event keeps the engine's signature: the projection applies only signed events
            for (String signed :
                    new String[] {OutboxEvent.SIGNATURE, OutboxEvent.SIGNATURE_VERSION, "event_id", "event_type"}) {
                String value = l.raw().getUserProperty(signed);
                if (value != null) {
                    m.putUserProperty(signed, value);
                }
            }
            SendResult r = producer.send(m);
            if (r.getSendStatus() != SendStatus.SEND_OK) {
                throw new IllegalStateException("replay of " + l.brokerMsgId() + " answered " + r.getSendStatus());
            }
            sent++;
        }
        return sent;
    }

    private static Letter letter(MessageExt m) {
        String original = m.getProperty(MessageConst.PROPERTY_RETRY_TOPIC);
        return new Letter(
                m.getMsgId(),
                original == null ? m.getTopic() : original,
                m.getKeys(),
                m.getUserProperty("message_id"),
                m.getReconsumeTimes(),
                m.getStoreTimestamp(),
                m.getBody(),
                m);
    }

    @Override
    public void close() {
        producer.shutdown();
    }
}
