package io.seckill.reservation;

import io.seckill.state.ReservationStatus;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;

/**
 * The reservation feature's face for the durable reservation ({@code inventory_reservation}, DESIGN.md §6.3): the
 * order consumer settles reservations here, the deadline sweeper writes tombstones, compensation and the canceller
 * move them on, the runbook freezes them, and reconciliation, the invariants and the dashboard read them. Every move
 * is a guarded UPDATE whose row count is the answer. The table is reached only here and in this package.
 */
@Service
public class Reservations {

    /** A reservation locked for the order consumer's batch: its state, its order and its message. */
    public record Row(UUID reservationId, ReservationStatus status, UUID orderId, UUID messageId) {}

    /** Where a reservation lives and what state it is in. */
    public record Target(UUID reservationId, long activityId, long skuId, long userId, ReservationStatus status) {}

    /** A reservation with its ids and version, as the runbook acts on it. */
    public record Reservation(
            UUID reservationId,
            UUID requestId,
            UUID messageId,
            long activityId,
            long skuId,
            long userId,
            ReservationStatus status,
            long version,
            UUID orderId) {}

    private final ReservationRepository rows;

    Reservations(ReservationRepository rows) {
        this.rows = rows;
    }

    // the order consumer's batch

    /** Locks the rows PostgreSQL has of these reservations (FOR UPDATE, in id order). */
    public List<Row> lock(List<UUID> reservationIds) {
        return rows.lock(reservationIds);
    }

    /** Inserts rows for reservations PostgreSQL has not seen, in their decided state; order ids may be null. */
    public void insertSettled(
            List<OrderCreateRequested> msgs, ReservationStatus status, String reason, Map<UUID, UUID> orderIds) {
        rows.insertSettled(msgs, status, reason, orderIds);
    }

    /** RESERVED -> ORDER_CREATED for each (reservation, order); how many moved. */
    public int markOrderCreated(Map<UUID, UUID> orderByReservation) {
        return rows.markOrderCreated(orderByReservation);
    }

    /** RESERVED -> ORDER_REJECTED with a reason; how many moved. */
    public int markRejected(List<UUID> reservationIds, String reason) {
        return rows.markRejected(reservationIds, reason);
    }

    // the deadline sweeper

    /** A durable rejection for a reservation PostgreSQL may never have seen; false when it already had it. */
    public boolean insertTombstone(OrderCreateRequested x, String reason) {
        return rows.insertTombstone(x, reason);
    }

    /** The reservation PostgreSQL holds for {@code x}'s request or message under another id, with its status. */
    public Optional<Map.Entry<UUID, ReservationStatus>> sameRequest(OrderCreateRequested x) {
        return rows.sameRequest(x);
    }

    /** The states PostgreSQL holds of these reservations (absent ones left out). */
    public Map<UUID, ReservationStatus> states(List<UUID> reservationIds) {
        return rows.states(reservationIds);
    }

    // compensation and the order's cancel

    public Optional<Target> target(UUID reservationId) {
        return rows.target(reservationId);
    }

    /** ORDER_REJECTED -> COMPENSATING; false when the reservation is in any other state. */
    public boolean markCompensating(UUID reservationId) {
        return rows.markCompensating(reservationId);
    }

    /** COMPENSATING -> COMPENSATED; false when the reservation is in any other state. */
    public boolean markCompensated(UUID reservationId) {
        return rows.markCompensated(reservationId);
    }

    /** ORDER_REJECTED | COMPENSATING -> MANUAL_REVIEW; false when the reservation is in any other state. */
    public boolean markManualReview(UUID reservationId) {
        return rows.markManualReview(reservationId);
    }

    /** ORDER_CREATED -> CANCELLED (its order was cancelled); false when the reservation is in any other state. */
    public boolean markCancelled(UUID reservationId) {
        return rows.markCancelled(reservationId);
    }

    // the runbook

    public Optional<Reservation> find(UUID reservationId) {
        return rows.find(reservationId);
    }

    /** The reservations whose own id, request, message or order id is {@code id}. */
    public List<UUID> reservationsOf(UUID id) {
        return rows.reservationsOf(id);
    }

    /** The row as stored, for an operator's evidence. */
    public List<Map<String, Object>> rowsOf(UUID reservationId) {
        return rows.rows(reservationId);
    }

    /** A state a freeze takes -> MANUAL_REVIEW; false when the reservation is in any other state. */
    public boolean freeze(UUID reservationId) {
        return rows.freeze(reservationId);
    }

    /** MANUAL_REVIEW -> {@code previous} when that is a state a freeze takes. */
    public boolean unfreeze(UUID reservationId, ReservationStatus previous) {
        return rows.unfreeze(reservationId, previous);
    }

    // reconciliation, the invariants, the dashboard

    /** Reservations of the SKU changed after {@code after} and older than the watermark. */
    public Judged.Page changed(long activityId, long skuId, Judged.Cursor after, Duration watermark, int limit) {
        return rows.changed(activityId, skuId, after, watermark, limit);
    }

    /** Every reservation of the SKU with its order and task, held ones too: what a recalibration counts. */
    public List<Judged> ofSku(long activityId, long skuId) {
        return rows.ofSku(activityId, skuId);
    }

    /** The SKU's reservations taken out of automation (MANUAL_REVIEW): only a person moves them on. */
    public List<Judged> inReview(long activityId, long skuId) {
        return rows.inReview(activityId, skuId);
    }

    /** How many of these reservations reached a state the buyer sees as final. */
    public long settled(Collection<String> reservationIds) {
        return rows.settled(reservationIds);
    }

    /** Reservations of the sale PostgreSQL has decided (any state but RESERVED). */
    public long decided(long activityId) {
        return rows.decided(activityId);
    }

    /** A sale's reservations counted by status. */
    public Map<String, Long> countByStatus(long activityId) {
        return rows.countByStatus(activityId);
    }
}
