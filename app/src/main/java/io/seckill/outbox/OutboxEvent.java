package io.seckill.outbox;

import java.util.UUID;

/** One row to publish: a fixed event_id, so every re-send is recognisably the same event (design 9.4). */
public record OutboxEvent(UUID eventId, String aggregateType, UUID aggregateId, String eventType, String payloadJson) {

    public static final String ORDER_CREATED = "ORDER_CREATED";
    public static final String RESERVATION_COMPENSATE_REQUIRED = "RESERVATION_COMPENSATE_REQUIRED";
    public static final String ORDER_CANCEL_PENDING = "ORDER_CANCEL_PENDING";
    public static final String ORDER_PAID = "ORDER_PAID";
    public static final String ORDER_CANCELLED = "ORDER_CANCELLED";

    /** An order's state change after creation: the event id is fixed by (type, order). */
    public static OutboxEvent orderStatus(String eventType, UUID orderId, UUID reservationId, long activityId, long skuId,
            long userId, String orderStatus) {
        java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
        p.put("event_type", eventType);
        p.put("order_id", orderId.toString());
        p.put("reservation_id", reservationId.toString());
        p.put("activity_id", activityId);
        p.put("sku_id", skuId);
        p.put("user_id", userId);
        p.put("order_status", orderStatus);
        return new OutboxEvent(io.seckill.reservation.ReservationIds.derived(eventType, orderId), "ORDER", orderId, eventType,
                io.seckill.mq.Json.text(p));
    }

    /** The event that goes with a durable decision to give a reservation's unit back. */
    public static OutboxEvent compensateRequired(UUID reservationId, long activityId, long skuId, long userId, String reason,
            UUID compensationTaskId) {
        java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
        p.put("event_type", RESERVATION_COMPENSATE_REQUIRED);
        p.put("reservation_id", reservationId.toString());
        p.put("activity_id", activityId);
        p.put("sku_id", skuId);
        p.put("user_id", userId);
        p.put("reason", reason);
        p.put("compensation_task_id", compensationTaskId.toString());
        return new OutboxEvent(io.seckill.reservation.ReservationIds.derived(RESERVATION_COMPENSATE_REQUIRED, reservationId),
                "RESERVATION", reservationId, RESERVATION_COMPENSATE_REQUIRED, io.seckill.mq.Json.text(p));
    }
}
