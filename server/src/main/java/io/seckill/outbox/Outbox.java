package io.seckill.outbox;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;

/**
 * The outbox feature's face (DESIGN.md §9.4): a business transaction appends its events here and the relay in this
 * package sends them; other features read the backlog and, for the reconciler, take back leases a dead relay left.
 * {@code event_outbox} is reached only here and in this package.
 */
@Service
public class Outbox {

    /** An event SENDING past its lease: its id and how often it was tried. */
    public record Stale(UUID eventId, int attempts) {}

    private final OutboxRepository events;

    Outbox(OutboxRepository events) {
        this.events = events;
    }

    /** Inside the business transaction: events of one type about aggregates of one type (nothing for none). */
    public void append(String aggregateType, String eventType, List<OutboxEvent> batch) {
        events.insert(aggregateType, eventType, batch);
    }

    /** Events SENDING whose lease ended more than {@code watermark} ago. */
    public List<Stale> stale(Duration watermark) {
        return events.stale(watermark);
    }

    /** SENDING with an expired lease -> RETRY; false when a relay settled or re-claimed it first. */
    public boolean reclaim(UUID eventId) {
        return events.reclaim(eventId);
    }

    /** Unsent events of one SKU's reservations and orders. */
    public long skuBacklog(long activityId, long skuId) {
        return events.skuBacklog(activityId, skuId);
    }

    /** Unsent events of a sale's orders and reservations. */
    public long saleBacklog(long activityId) {
        return events.saleBacklog(activityId);
    }

    /** The events of a reservation and its order, for an operator's evidence. */
    public List<Map<String, Object>> ofReservation(UUID reservationId) {
        return events.ofReservation(reservationId);
    }
}
