package io.seckill.runbook;

import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.compensation.CompensationTasks;
import io.seckill.hold.ManualHolds;
import io.seckill.order.OrderRecord;
import io.seckill.order.Orders;
import io.seckill.payment.Payments;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.refusal.Input;
import io.seckill.refusal.Refusal;
import io.seckill.reservation.Reservations;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * Finds the reservation behind any business id an operator holds (reservation, request, message,
 * order, payment, channel transaction or compensation task id) by asking each table's owner, and
 * reads the object's state across PostgreSQL and Redis as one {@link Snapshot}.
 */
@Component
record Lookup(
        Reservations reservations,
        Orders orders,
        Payments payments,
        CompensationTasks tasks,
        ManualHolds holds,
        SaleRegistry registry,
        Redis redis) {

    /** The reservation behind {@code anyId}: 404 when unknown, 400 when it names more than one. */
    UUID resolve(String anyId) {
        String id = anyId.trim();
        Set<UUID> found = new LinkedHashSet<>();
        UUID uuid = parse(id);
        if (uuid != null) {
            found.addAll(reservations.reservationsOf(uuid));
            orders.reservationOf(uuid).ifPresent(found::add);
            tasks.reservationOf(uuid).ifPresent(found::add);
        }
        found.addAll(payments.reservationsOf(id, uuid != null));
        if (found.size() > 1) {
            throw Refusal.invalid("id", "id " + anyId + " matches more than one reservation");
        }
        return found.stream()
                .findFirst()
                .orElseThrow(() -> Refusal.notFound(
                        "OBJECT_NOT_FOUND",
                        "no reservation, request, message, order, payment or task has id " + anyId,
                        "id"));
    }

    Reservations.Reservation reservation(UUID rid) {
        return reservations.find(rid).orElseThrow(() -> new IllegalStateException("reservation " + rid + " vanished"));
    }

    Snapshot snapshot(UUID rid) {
        Reservations.Reservation r = reservation(rid);
        OrderRecord order = orders.ofReservation(rid).orElse(null);
        SkuSlot slot = slot(r);
        return new Snapshot(
                r.status(),
                r.version(),
                r.activityId(),
                r.skuId(),
                r.userId(),
                order == null ? null : order.orderId(),
                order == null ? null : order.status(),
                tasks.ofReservation(rid).stream()
                        .map(t -> String.valueOf(t.get("status")))
                        .toList(),
                redis.sync().hget(slot.reservation(rid.toString()), "status"),
                !holds.holds(java.util.List.of(rid.toString())).isEmpty());
    }

    static final int MAX_REASON = 2000;

    SkuSlot slot(Reservations.Reservation r) {
        Activity a = registry.load(r.activityId()).orElseThrow();
        return SkuSlot.forUser(r.activityId(), r.skuId(), a.sku(r.skuId()).buckets(), r.userId());
    }

    /** Every manual action names why it was taken, in a line or a paragraph of plain text. */
    static void requireReason(String reason) {
        if (reason == null || reason.isBlank()) {
            throw Refusal.invalid("reason", "is required for every manual action");
        }
        Input.text("reason", reason, MAX_REASON);
    }

    private static UUID parse(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException notUuid) {
            return null;
        }
    }
}
