package io.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.reservation.OrderCreateRequested;
import io.seckill.reservation.OrderRequestSender;
import io.seckill.reservation.ReservationIds;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.rocketmq.client.producer.SendStatus;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A process that can publish to the order topic, but holds no id key. */
class ForgedMessageIT extends IntegrationTest {

    @Test
    @DisplayName("order messages whose ids no id key made - random ids, or ids under another key - are quarantined "
            + "with an anomaly: no order, no reservation, no stock moved; a genuine one beside them becomes an order")
    void forgedMessagesAreQuarantined() throws Exception {
        long activityId = openSale(3);
        long now = System.currentTimeMillis();
        UUID request = UUID.randomUUID();
        OrderCreateRequested random = OrderCreateRequested.of(
                UUID.randomUUID(), request, UUID.randomUUID(), activityId, 1, 77, now, now + 300_000);
        ReservationIds otherKey = new ReservationIds(Map.of(1, "not-the-engine-s-key-0123456789abcdef0123"));
        UUID rid = otherKey.reservationId(1, activityId, 1, 78, request);
        OrderCreateRequested wrongKey = OrderCreateRequested.of(
                otherKey.messageId(1, rid), request, rid, activityId, 1, 78, now, now + 300_000);
        for (OrderCreateRequested forged : new OrderCreateRequested[] {random, wrongKey}) {
            assertThat(producer.send(OrderRequestSender.message(props.mq().orderRequestTopic(), forged, 0))
                            .getSendStatus())
                    .isEqualTo(SendStatus.SEND_OK);
        }
        placeOrder(activityId, 1, 79);

        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(count(
                                "SELECT count(*) FROM message_quarantine WHERE reason = 'FORGED' AND message_id IN (?, ?)",
                                random.messageId().toString(),
                                wrongKey.messageId().toString()))
                        .isEqualTo(2));
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'INBOX_FORGED' AND object_id IN (?, ?)",
                        random.messageId().toString(),
                        wrongKey.messageId().toString()))
                .isEqualTo(2);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ? AND user_id IN (77, 78)", activityId))
                .isZero();
        assertThat(count(
                        "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND user_id IN (77, 78)",
                        activityId))
                .isZero();
        assertThat(count("SELECT available_stock FROM sku_inventory WHERE activity_id = ?", activityId))
                .as("only the genuine order took a unit")
                .isEqualTo(2);
        assertThat(counter("order.message.forged")).isGreaterThanOrEqualTo(2);
        awaitSettled(activityId, 1);
        assertInvariants(activityId, true);
    }
}
