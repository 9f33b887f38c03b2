package io.seckill.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.json.Json;
import io.seckill.outbox.OutboxEvent;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.ReservationIds;
import io.seckill.support.IntegrationTest;
import io.seckill.support.Messages;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.rocketmq.common.message.Message;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Fault #19: an outbox event delivered again changes nothing downstream. */
class ProjectionIT extends IntegrationTest {

    @Autowired
    ReservationIds ids;

    @Test
    @DisplayName(
            "fault #19: ORDER_CREATED delivered again (same event_id) leaves the Redis projection and counters unchanged")
    void duplicateEventChangesNothing() throws Exception {
        long activityId = openSale(3);
        String rid = firstSettled(activityId, 11);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        Map<String, String> before = redis.sync().hgetall(slot.counter());
        assertThat(before).containsEntry("committed", "1").containsEntry("open_reserved", "0");

        String payload = jdbc.queryForObject(
                "SELECT payload::text FROM event_outbox WHERE event_type = 'ORDER_CREATED' "
                        + "AND aggregate_id = (SELECT order_id FROM orders WHERE reservation_id = ?)",
                String.class,
                UUID.fromString(rid));
        double already = meters.counter("projection.apply", "event", "order_created", "result", "already_projected")
                .count();
        for (int i = 0; i < 20; i++) {
            producer.send(Messages.signedEvent(
                    ids, props.mq().orderEventTopic(), OutboxEvent.ORDER_CREATED, rid, payload.getBytes()));
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> meters.counter("projection.apply", "event", "order_created", "result", "already_projected")
                                        .count()
                                - already
                        >= 20);
        assertThat(redis.sync().hgetall(slot.counter())).isEqualTo(before);
        assertThat(redis.sync().hget(slot.reservation(rid), "status")).isEqualTo("ORDER_CREATED");
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("an order event the engine did not sign - none, or signed with another key - is not applied: the "
            + "buyer's reservation keeps its state, the event is counted and recorded, a signed one is applied")
    void forgedEventIsNotApplied() throws Exception {
        long activityId = openSale(3);
        String rid = firstSettled(activityId, 12);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        Map<String, String> counters = redis.sync().hgetall(slot.counter());
        String orderId = jdbc.queryForObject(
                "SELECT order_id::text FROM orders WHERE reservation_id = ?::uuid", String.class, rid);
        byte[] cancelled = Json.bytes(Map.of(
                "event_type",
                OutboxEvent.ORDER_CANCELLED,
                "activity_id",
                activityId,
                "sku_id",
                1,
                "user_id",
                12,
                "reservation_id",
                rid,
                "order_id",
                orderId,
                "order_status",
                "CANCELLED"));
        double forgedBefore = counter("projection.event.forged");
        producer.send(new Message(props.mq().orderEventTopic(), OutboxEvent.ORDER_CANCELLED, rid, cancelled));
        producer.send(Messages.signedEvent(
                new ReservationIds(Map.of(1, "a-key-that-is-not-the-engine-s-0123456789")),
                props.mq().orderEventTopic(),
                OutboxEvent.ORDER_CANCELLED,
                rid,
                cancelled));
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> counter("projection.event.forged") - forgedBefore >= 2);
        assertThat(redis.sync().hget(slot.reservation(rid), "status"))
                .as("a forged cancel changed nothing buyers see")
                .isEqualTo("ORDER_CREATED");
        assertThat(redis.sync().hgetall(slot.counter())).isEqualTo(counters);
        assertThat(count("SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'FORGED_ORDER_EVENT'"))
                .isGreaterThanOrEqualTo(2);
        assertInvariants(activityId, true);
    }
}
