package io.seckill.mq;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.header.UpdateConsumerOffsetRequestHeader;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The backlog's age is the store time of the message at the group's own offset, read again at every
 * reading: after the group moves on, the next reading ages from the next message, never from the one
 * an earlier reading saw.
 */
class BrokerBacklogIT extends IntegrationTest {

    private static final long GAP_MS = 1_500;

    @Autowired
    private BrokerBacklog backlog;

    @Test
    @DisplayName("the backlog ages from the message at the group's offset, and follows the offset as it moves")
    void agesFromTheGroupsOffset() throws Exception {
        String topic = "backlog-it-" + UUID.randomUUID().toString().substring(0, 8);
        String group = "backlog-it-group-" + UUID.randomUUID().toString().substring(0, 8);
        SendResult first = send(topic, null);
        MessageQueue queue = first.getMessageQueue();
        long firstSent = System.currentTimeMillis();
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> System.currentTimeMillis() - firstSent >= GAP_MS);
        long secondSent = System.currentTimeMillis();
        send(topic, queue);

        MQClientInstance client = producer.getDefaultMQProducerImpl().getMqClientFactory();
        String addr = client.findBrokerAddressInPublish(queue.getBrokerName());
        MQClientAPIImpl api = client.getMQClientAPIImpl();
        SubscriptionGroupConfig g = new SubscriptionGroupConfig();
        g.setGroupName(group);
        api.createSubscriptionGroup(addr, g, 3_000);
        commit(api, addr, group, queue, first.getQueueOffset());

        // nothing consumed: the first message's age, which is past the gap
        long ageFirst = backlog.oldestUnconsumedAgeMs(group, topic);
        assertThat(ageFirst).isGreaterThanOrEqualTo(GAP_MS - 50);

        // the first consumed: the second message's age, however often the first was read before
        commit(api, addr, group, queue, first.getQueueOffset() + 1);
        long ageSecond = backlog.oldestUnconsumedAgeMs(group, topic);
        long sinceSecond = System.currentTimeMillis() - secondSent;
        assertThat(ageSecond).isLessThanOrEqualTo(sinceSecond + 50).isLessThan(ageFirst);

        // both consumed: no backlog
        commit(api, addr, group, queue, first.getQueueOffset() + 2);
        assertThat(backlog.oldestUnconsumedAgeMs(group, topic)).isZero();

        // a topic the broker does not have holds nothing
        assertThat(backlog.oldestUnconsumedAgeMs(group, topic + "-absent")).isZero();
    }

    @Test
    @DisplayName(
            "a message waiting in the broker's delay queue is counted for the topic it will be delivered to, and no "
                    + "longer once it is delivered there")
    void delayedMessagesAreCountedUntilDelivered() throws Exception {
        String topic = "backlog-delay-it-" + UUID.randomUUID().toString().substring(0, 8);
        send(topic, null);
        Message m = new Message(topic, "later".getBytes(StandardCharsets.UTF_8));
        m.setDelayTimeLevel(3);
        SendResult delayed = producer.send(m);
        assertThat(delayed.getSendStatus()).isEqualTo(SendStatus.SEND_OK);

        assertThat(backlog.delayed(topic, topic)).as("waiting for its delivery").isEqualTo(1);
        assertThat(backlog.delayed(topic + "-other", topic))
                .as("bound for another topic")
                .isZero();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> backlog.delayed(topic, topic) == 0);
        long stored = 0;
        for (MessageQueue q : producer.fetchPublishMessageQueues(topic)) {
            stored += producer.getDefaultMQProducerImpl().maxOffset(q);
        }
        assertThat(stored)
                .as("both messages on the topic, the delayed one delivered")
                .isEqualTo(2);
    }

    private SendResult send(String topic, MessageQueue queue) throws Exception {
        Message m = new Message(topic, "backlog".getBytes(StandardCharsets.UTF_8));
        SendResult r = queue == null ? producer.send(m) : producer.send(m, queue);
        assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
        return r;
    }

    private static void commit(MQClientAPIImpl api, String addr, String group, MessageQueue queue, long offset)
            throws Exception {
        UpdateConsumerOffsetRequestHeader h = new UpdateConsumerOffsetRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(queue.getTopic());
        h.setQueueId(queue.getQueueId());
        h.setCommitOffset(offset);
        api.updateConsumerOffset(addr, h, 3_000);
    }
}
