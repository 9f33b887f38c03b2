package io.seckill.outbox;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.seckill.json.Json;
import io.seckill.reservation.ReservationIds;
import io.seckill.state.OrderStatus;
import java.math.BigDecimal;
import java.util.UUID;

/**
 * One row to publish: a fixed event_id derived from (type, aggregate), so every re-send is
 * recognisably the same event. The payloads are the records below, written as snake_case JSON.
 */
public record OutboxEvent(
        UUID eventId,
        String aggregateType,
        UUID aggregateId,
        String eventType,
        String payloadJson,
        String traceparent) {

    /** The message property carrying an event's signature ({@code ReservationIds.eventSignature}), hex. */
    public static final String SIGNATURE = "sig";

    /** The message property naming the id key version the event was signed with. */
    public static final String SIGNATURE_VERSION = "sig_v";

    public static final String ORDER_CREATED = "ORDER_CREATED";
    public static final String RESERVATION_COMPENSATE_REQUIRED = "RESERVATION_COMPENSATE_REQUIRED";
    public static final String ORDER_CANCEL_PENDING = "ORDER_CANCEL_PENDING";
    public static final String ORDER_PAID = "ORDER_PAID";
    public static final String ORDER_CANCELLED = "ORDER_CANCELLED";

    /** An order was created or changed state; {@code amount} only on creation. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record OrderChanged(
            String eventType,
            UUID orderId,
            UUID reservationId,
            long activityId,
            long skuId,
            long userId,
            String amount,
            OrderStatus orderStatus) {}

    /** A durable decision to give a reservation's unit back in Redis. */
    public record CompensateRequired(
            String eventType,
            UUID reservationId,
            long activityId,
            long skuId,
            long userId,
            String reason,
            UUID compensationTaskId) {}

    /** A new order (CREATED). */
    public static OutboxEvent orderCreated(
            UUID orderId, UUID reservationId, long activityId, long skuId, long userId, BigDecimal amount) {
        return order(new OrderChanged(
                ORDER_CREATED,
                orderId,
                reservationId,
                activityId,
                skuId,
                userId,
                amount.toPlainString(),
                OrderStatus.CREATED));
    }

    /** An order's state change after creation. */
    public static OutboxEvent orderStatus(
            String eventType,
            UUID orderId,
            UUID reservationId,
            long activityId,
            long skuId,
            long userId,
            OrderStatus orderStatus) {
        return order(new OrderChanged(eventType, orderId, reservationId, activityId, skuId, userId, null, orderStatus));
    }

    public static OutboxEvent compensateRequired(
            UUID reservationId, long activityId, long skuId, long userId, String reason, UUID compensationTaskId) {
        CompensateRequired p = new CompensateRequired(
                RESERVATION_COMPENSATE_REQUIRED, reservationId, activityId, skuId, userId, reason, compensationTaskId);
        return new OutboxEvent(
                ReservationIds.derived(RESERVATION_COMPENSATE_REQUIRED, reservationId),
                "RESERVATION",
                reservationId,
                RESERVATION_COMPENSATE_REQUIRED,
                Json.text(p),
                null);
    }

    private static OutboxEvent order(OrderChanged p) {
        return new OutboxEvent(
                ReservationIds.derived(p.eventType(), p.orderId()),
                "ORDER",
                p.orderId(),
                p.eventType(),
                Json.text(p),
                null);
    }

    /** The same event, written under the given trace context (null: the current span's). */
    public OutboxEvent tracedBy(String traceparent) {
        return new OutboxEvent(eventId, aggregateType, aggregateId, eventType, payloadJson, traceparent);
    }
}
