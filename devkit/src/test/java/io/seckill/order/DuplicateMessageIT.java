package io.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.json.Json;
import io.seckill.reservation.OrderCreateRequested;
import io.seckill.reservation.OrderRequestSender;
import io.seckill.support.IntegrationTest;
import io.seckill.support.Messages;
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

/** Effect once (DESIGN.md §13.2, fault #4): one message id delivered many times, or with another payload. */
class DuplicateMessageIT extends IntegrationTest {

    @Autowired
    OrderBatchService batches;

    @Test
    @DisplayName(
            "fault #4: one message_id delivered 10,000 times concurrently to the consumer: inbox 1, order 1, ledger 1, ORDER_CREATED 1")
    void tenThousandDirectDeliveries() throws Exception {
        OrderCreateRequested msg = reservedMessage(9001);
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
        assertEffectOnce(msg);
    }

    @Test
    @DisplayName(
            "fault #4: one message_id sent 10,000 times through the real broker: inbox 1, order 1, ledger 1, ORDER_CREATED 1")
    void tenThousandBrokerDeliveries() throws Exception {
        OrderCreateRequested msg = reservedMessage(9002);
        double before = duplicates();
        for (int i = 0; i < 10_000; i++) {
            producer.sendOneway(OrderRequestSender.message(props.mq().orderRequestTopic(), msg, i));
        }
        // the app's own send delivered it once more: at least 10,000 duplicates are seen
        Awaitility.await()
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> duplicates() - before >= 10_000);
        assertEffectOnce(msg);
    }

    @Test
    @DisplayName("same message_id, different payload: no effect, quarantined, counted, never success")
    void payloadConflictIsQuarantined() throws Exception {
        OrderCreateRequested msg = reservedMessage(9003);
        awaitSettled(msg.activityId(), 1);
        OrderCreateRequested tampered = new OrderCreateRequested(
                msg.schemaVersion(),
                msg.eventType(),
                msg.messageId(),
                msg.messageKey(),
                msg.requestId(),
                msg.reservationId(),
                msg.activityId(),
                2,
                9999,
                null,
                msg.reservedAt(),
                msg.businessDeadline());
        double conflictsBefore = meters.counter("inbox.payload.conflict").count();
        Map<InboundOrder, MessageOutcome> out = batches.process(List.of(Messages.inbound(tampered)));
        assertThat(out.values()).containsExactly(MessageOutcome.QUARANTINED);
        assertThat(meters.counter("inbox.payload.conflict").count()).isEqualTo(conflictsBefore + 1);
        assertThat(count(
                        "SELECT count(*) FROM message_quarantine WHERE message_id = ? AND reason = 'PAYLOAD_CONFLICT'",
                        msg.messageId().toString()))
                .isEqualTo(1);
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE object_id = ? AND anomaly_type = 'INBOX_PAYLOAD_CONFLICT'",
                        msg.messageId().toString()))
                .isEqualTo(1);
        assertEffectOnce(msg);
        assertThat(count("SELECT count(*) FROM orders WHERE user_id = 9999")).isZero();

        // and through the broker: the tampered body is quarantined and acknowledged, never retried forever (as forged
        // there: its ids are not the HMACs of the user and SKU it names)
        producer.send(new org.apache.rocketmq.common.message.Message(
                props.mq().orderRequestTopic(),
                OrderCreateRequested.EVENT_TYPE,
                msg.reservationId().toString(),
                Json.bytes(tampered)));
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> count(
                                "SELECT count(*) FROM message_quarantine WHERE message_id = ?",
                                msg.messageId().toString())
                        == 2);
        assertEffectOnce(msg);
    }

    @Test
    @DisplayName("an unreadable message is quarantined and acknowledged; the consumer goes on")
    void unreadableMessage() throws Exception {
        String key = UUID.randomUUID().toString();
        org.apache.rocketmq.common.message.Message bad = new org.apache.rocketmq.common.message.Message(
                props.mq().orderRequestTopic(), OrderCreateRequested.EVENT_TYPE, key, "{not json".getBytes());
        bad.putUserProperty("message_id", key);
        producer.send(bad);
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> count(
                                "SELECT count(*) FROM message_quarantine WHERE message_id = ? AND reason = 'UNREADABLE'",
                                key)
                        == 1);
        long activityId = openSale(1);
        reserve(9100, activityId, 1);
        awaitSettled(activityId, 1);
    }

    private double duplicates() {
        return counter("order.consume", "result", "duplicate");
    }

    /** A new sale of five units and the order message of {@code userId}'s reservation in it, as the entry sent it. */
    private OrderCreateRequested reservedMessage(long userId) throws Exception {
        long activityId = openSale(5);
        return Messages.forReservation(redis, activityId, 1, reservationId(userId, activityId));
    }

    /** The message took effect once: one inbox row, order, ledger row, ORDER_CREATED event and occupied unit. */
    private void assertEffectOnce(OrderCreateRequested msg) {
        UUID reservation = msg.reservationId();
        long activityId = msg.activityId();
        assertThat(count("SELECT count(*) FROM consumer_inbox WHERE message_id = ?", msg.messageId()))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM orders WHERE reservation_id = ?", reservation))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM inventory_ledger WHERE reservation_id = ?", reservation))
                .isEqualTo(1);
        assertThat(count(
                        "SELECT count(*) FROM event_outbox WHERE event_type = 'ORDER_CREATED' AND aggregate_id = "
                                + "(SELECT order_id FROM orders WHERE reservation_id = ?)",
                        reservation))
                .isEqualTo(1);
        assertThat(count("SELECT occupied_stock FROM sku_inventory WHERE activity_id = ? AND sku_id = 1", activityId))
                .isEqualTo(1);
        awaitSettled(activityId, 1);
        assertInvariants(activityId, true);
    }
}
