package io.seckill.reservation;

import java.time.Instant;
import java.util.UUID;

/**
 * The ORDER_CREATE_REQUESTED message body (DESIGN.md §8.3). Immutable for a given message_id: it is
 * rebuilt from the reservation's recovery fields, never from a clock, so every resend hashes the
 * same. {@code retry_count} and trace ids travel as message properties, outside the body.
 */
public record OrderCreateRequested(
        int schemaVersion,
        String eventType,
        UUID messageId,
        String messageKey,
        UUID requestId,
        UUID reservationId,
        long activityId,
        long skuId,
        long userId,
        UUID orderId,
        String reservedAt,
        String businessDeadline) {

    public static final String EVENT_TYPE = "ORDER_CREATE_REQUESTED";

    public static OrderCreateRequested of(UUID messageId, UUID requestId, UUID reservationId, long activityId, long skuId,
            long userId, long reservedAtMs, long businessDeadlineMs) {
        return new OrderCreateRequested(ReservationIds.SCHEMA_VERSION, EVENT_TYPE, messageId, reservationId.toString(),
                requestId, reservationId, activityId, skuId, userId, null,
                Instant.ofEpochMilli(reservedAtMs).toString(), Instant.ofEpochMilli(businessDeadlineMs).toString());
    }

    public Instant reservedAtInstant() {
        return Instant.parse(reservedAt);
    }

    public Instant businessDeadlineInstant() {
        return Instant.parse(businessDeadline);
    }
}
