package io.seckill.outbox;

import java.util.UUID;

/** One row to publish: a fixed event_id, so every re-send is recognisably the same event (design 9.4). */
public record OutboxEvent(UUID eventId, String aggregateType, UUID aggregateId, String eventType, String payloadJson) {

    public static final String ORDER_CREATED = "ORDER_CREATED";
    public static final String RESERVATION_COMPENSATE_REQUIRED = "RESERVATION_COMPENSATE_REQUIRED";
}
