package io.seckill.support;

import io.seckill.json.Json;
import io.seckill.order.InboundOrder;
import io.seckill.outbox.OutboxEvent;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.OrderCreateRequested;
import io.seckill.reservation.ReservationIds;
import java.util.Map;
import java.util.UUID;
import org.apache.rocketmq.common.message.Message;

/** Order messages rebuilt from a real reservation's recovery fields in Redis (as the rescan does). */
public final class Messages {

    private Messages() {}

    public static OrderCreateRequested forReservation(Redis redis, long activityId, long skuId, String reservationId) {
        Map<String, String> h =
                redis.sync().hgetall(SkuSlot.single(activityId, skuId).reservation(reservationId));
        if (h.isEmpty()) {
            throw new IllegalStateException("no reservation " + reservationId + " in Redis");
        }
        return OrderCreateRequested.of(
                UUID.fromString(h.get("message_id")),
                UUID.fromString(h.get("request_id")),
                UUID.fromString(reservationId),
                activityId,
                skuId,
                Long.parseLong(h.get("user_id")),
                Long.parseLong(h.get("reserved_at_ms")),
                Long.parseLong(h.get("business_deadline_ms")));
    }

    /** An order event as the outbox relay sends it: signed with the current id key of {@code ids}. */
    public static Message signedEvent(ReservationIds ids, String topic, String type, String key, byte[] payload) {
        Message m = new Message(topic, type, key, payload);
        int version = ids.currentVersion();
        m.putUserProperty(OutboxEvent.SIGNATURE_VERSION, Integer.toString(version));
        m.putUserProperty(OutboxEvent.SIGNATURE, ids.eventSignature(version, payload));
        return m;
    }

    public static InboundOrder inbound(OrderCreateRequested msg) {
        return InboundOrder.of(msg, Json.bytes(msg), "test-" + UUID.randomUUID());
    }
}
