package io.seckill.runbook;

import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.compensation.CompensationTasks;
import io.seckill.hold.ManualHolds;
import io.seckill.reservation.Reservations;
import io.seckill.state.ObjectKind;
import io.seckill.state.ReservationStatus;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Takes an object out of automation and gives it back: the reservation to MANUAL_REVIEW, its tasks
 * to MANUAL, a hold on it and its order that every worker respects - all in one transaction, with
 * an anomaly and an audit row.
 */
@Service
public record Freezes(
        Lookup lookup,
        ManualHolds holds,
        Reservations reservations,
        CompensationTasks tasks,
        Anomalies anomalies,
        TransactionTemplate tx) {

    private static final Logger log = LoggerFactory.getLogger(Freezes.class);

    /** A frozen reservation: its state before and after the freeze. */
    public record Frozen(String reservationId, Snapshot before, Snapshot after) {}

    public Frozen freeze(String anyId, String operator, String reason) {
        Lookup.requireReason(reason);
        UUID rid = lookup.resolve(anyId);
        Snapshot before = lookup.snapshot(rid);
        tx.executeWithoutResult(s -> {
            holds.hold(
                    ObjectKind.RESERVATION,
                    rid.toString(),
                    before.reservationStatus().name(),
                    reason,
                    operator);
            if (before.orderId() != null) {
                holds.hold(
                        ObjectKind.ORDER,
                        before.orderId().toString(),
                        before.orderStatus().name(),
                        reason,
                        operator);
            }
            reservations.freeze(rid);
            tasks.freeze(rid);
            anomalies.record(
                    AnomalyKind.MANUAL_REVIEW,
                    ObjectKind.RESERVATION,
                    rid.toString(),
                    before.activityId(),
                    before.skuId(),
                    Map.of("operator", operator, "reason", reason, "before", before.toMap()));
        });
        Snapshot after = lookup.snapshot(rid);
        holds.audit(
                operator,
                "FREEZE",
                ObjectKind.RESERVATION,
                rid.toString(),
                before.toMap(),
                after.toMap(),
                Map.of("query", anyId),
                reason);
        log.warn("runbook.freeze reservation_id={} operator={} reason={}", rid, operator, reason);
        return new Frozen(rid.toString(), before, after);
    }

    /** Releases the holds and puts the reservation back where it was frozen; tasks become runnable. */
    String release(UUID rid, Snapshot before) {
        Optional<String> previous = holds.release(ObjectKind.RESERVATION, rid.toString());
        if (before.orderId() != null) {
            holds.release(ObjectKind.ORDER, before.orderId().toString());
        }
        if (previous.isEmpty()) {
            return "no hold";
        }
        ReservationStatus back = ReservationStatus.valueOf(previous.get());
        boolean restored = ReservationStatus.MANUAL_REVIEW.canMoveTo(back) && reservations.unfreeze(rid, back);
        int taskCount = tasks.unfreeze(rid);
        return "hold released (reservation back to " + (restored ? back : before.reservationStatus()) + ", " + taskCount
                + " tasks runnable)";
    }
}
