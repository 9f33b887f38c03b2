package io.seckill.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.outbox.OutboxEvent;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.rocketmq.common.message.Message;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Fault #19: an outbox event delivered again changes nothing downstream. */
class ProjectionIT extends IntegrationTest {

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
            Message m = new Message(props.mq().orderEventTopic(), OutboxEvent.ORDER_CREATED, rid, payload.getBytes());
            producer.send(m);
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
}
