package io.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import io.seckill.mq.Json;
import io.seckill.reservation.OrderCreateRequested;
import io.seckill.reservation.OrderRequestSender;
import io.seckill.support.IntegrationTest;
import io.seckill.support.Messages;

/** Effect once (DESIGN.md §13.2, fault #4): one message id delivered many times, or with another payload. */
class DuplicateMessageIT extends IntegrationTest {

    @Autowired
    OrderBatchService batches;

    @Test
    @DisplayName("fault #4: one message_id delivered 10,000 times concurrently to the consumer: inbox 1, order 1, ledger 1, ORDER_CREATED 1")
    void tenThousandDirectDeliveries() throws Exception {
        long activityId = openSale(5);
        OrderCreateRequested msg = reservedMessage(activityId, 9001);
        List<MessageOutcome> outcomes = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
            List<Future<Map<InboundOrder, MessageOutcome>>> fs = new ArrayList<>();
            for (int b = 0; b < 400; b++) {
                List<InboundOrder> batch = new ArrayList<>();
                for (int i = 0; i < 25; i++) {
                    batch.add(Messages.inbound(msg));
                }
                fs.add(pool.submit(() -> batches.process(batch)));
            }
            for (var f : fs) {
                outcomes.addAll(f.get().values());
            }
        }
        assertThat(outcomes).hasSize(10_000);
        assertThat(outcomes).doesNotContain(MessageOutcome.RETRY, MessageOutcome.QUARANTINED);
        assertEffectOnce(activityId, msg.reservationId().toString(), msg.messageId());
    }

    @Test
    @DisplayName("fault #4: one message_id sent 10,000 times through the real broker: inbox 1, order 1, ledger 1, ORDER_CREATED 1")
    void tenThousandBrokerDeliveries() throws Exception {
        long activityId = openSale(5);
        OrderCreateRequested msg = reservedMessage(activityId, 9002);
        double before = meters.counter("order.consume", "result", "duplicate").count();
        for (int i = 0; i < 10_000; i++) {
            producer.sendOneway(OrderRequestSender.message(props.mq().orderRequestTopic(), msg, i));
        }
        // the app's own send delivered it once more: at least 10,000 duplicates are seen
        Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(
                () -> meters.counter("order.consume", "result", "duplicate").count() - before >= 10_000);
        assertEffectOnce(activityId, msg.reservationId().toString(), msg.messageId());
    }

    @Test
    @DisplayName("same message_id, different payload: no effect, quarantined, counted, never success")
    void payloadConflictIsQuarantined() throws Exception {
        long activityId = openSale(5);
        String rid = firstSettled(activityId, 9003);
        OrderCreateRequested msg = Messages.forReservation(redis, activityId, 1, rid);
        OrderCreateRequested tampered = new OrderCreateRequested(msg.schemaVersion(), msg.eventType(), msg.messageId(),
                msg.messageKey(), msg.requestId(), msg.reservationId(), msg.activityId(), 2, 9999, null, msg.reservedAt(),
                msg.businessDeadline());
        double conflictsBefore = meters.counter("inbox.payload.conflict").count();
        Map<InboundOrder, MessageOutcome> out = batches.process(List.of(Messages.inbound(tampered)));
        assertThat(out.values()).containsExactly(MessageOutcome.QUARANTINED);
        assertThat(meters.counter("inbox.payload.conflict").count()).isEqualTo(conflictsBefore + 1);
        assertThat(count("SELECT count(*) FROM message_quarantine WHERE message_id = ? AND reason = 'PAYLOAD_CONFLICT'",
                msg.messageId().toString())).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM reconcile_anomaly WHERE object_id = ? AND anomaly_type = 'INBOX_PAYLOAD_CONFLICT'",
                msg.messageId().toString())).isEqualTo(1);
        assertEffectOnce(activityId, rid, msg.messageId());
        assertThat(count("SELECT count(*) FROM orders WHERE user_id = 9999")).isZero();

        // and through the broker: the tampered body is quarantined and acknowledged, never retried forever
        producer.send(new org.apache.rocketmq.common.message.Message(props.mq().orderRequestTopic(),
                OrderCreateRequested.EVENT_TYPE, rid, Json.bytes(tampered)));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> count(
                "SELECT count(*) FROM message_quarantine WHERE message_id = ?", msg.messageId().toString()) == 2);
        assertEffectOnce(activityId, rid, msg.messageId());
    }

    @Test
    @DisplayName("an unreadable message is quarantined and acknowledged; the consumer goes on")
    void unreadableMessage() throws Exception {
        String key = UUID.randomUUID().toString();
        org.apache.rocketmq.common.message.Message bad = new org.apache.rocketmq.common.message.Message(
                props.mq().orderRequestTopic(), OrderCreateRequested.EVENT_TYPE, key, "{not json".getBytes());
        bad.putUserProperty("message_id", key);
        producer.send(bad);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> count(
                "SELECT count(*) FROM message_quarantine WHERE message_id = ? AND reason = 'UNREADABLE'", key) == 1);
        long activityId = openSale(1);
        reserve(9100, activityId, 1);
        awaitSettled(activityId, 1);
    }

    /** The order message of a fresh reservation by {@code userId}, as the entry sent it. */
    private OrderCreateRequested reservedMessage(long activityId, long userId) throws Exception {
        return Messages.forReservation(redis, activityId, 1, reservationId(userId, activityId));
    }

    private void assertEffectOnce(long activityId, String rid, UUID messageId) {
        UUID reservation = UUID.fromString(rid);
        assertThat(count("SELECT count(*) FROM consumer_inbox WHERE message_id = ?", messageId)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM orders WHERE reservation_id = ?", reservation)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM inventory_ledger WHERE reservation_id = ?", reservation)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM event_outbox WHERE event_type = 'ORDER_CREATED' AND aggregate_id = "
                + "(SELECT order_id FROM orders WHERE reservation_id = ?)", reservation)).isEqualTo(1);
        assertThat(count("SELECT occupied_stock FROM sku_inventory WHERE activity_id = ? AND sku_id = 1", activityId))
                .isEqualTo(1);
        awaitSettled(activityId, 1);
        assertInvariants(activityId, true);
    }
}
