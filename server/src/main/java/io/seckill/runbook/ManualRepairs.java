package io.seckill.runbook;

import io.seckill.compensation.CompensationTasks;
import io.seckill.compensation.CompensationWorker;
import io.seckill.hold.ManualHolds;
import io.seckill.payment.PaymentService;
import io.seckill.payment.Payments;
import io.seckill.projection.OrderProjection;
import io.seckill.reconcile.Repairs;
import io.seckill.redis.Redis;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.refusal.Refusal;
import io.seckill.reservation.Reservations;
import io.seckill.state.HashStatus;
import io.seckill.state.ObjectKind;
import io.seckill.state.OrderStatus;
import io.seckill.state.ReservationStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;

/**
 * An operator's repair: one of the standard actions, run as an idempotent repair task (the same
 * request against the same version runs once), audited with the state before and after.
 */
@Service
public record ManualRepairs(
        Lookup lookup,
        Freezes freezes,
        Repairs repairs,
        ManualHolds holds,
        CompensationTasks tasks,
        CompensationWorker compensation,
        OrderProjection projection,
        Payments payments,
        Redis redis) {

    /** The standard actions a repair may run. */
    public static final List<String> ACTIONS = List.of("release-hold", "compensate", "rebuild-projection", "refund");

    /** A repair's answer: the action, its result, and the reservation before and after. */
    public record Repaired(String reservationId, String action, String result, Snapshot before, Snapshot after) {}

    public Repaired repair(String anyId, String action, String operator, String reason) {
        Lookup.requireReason(reason);
        if (!ACTIONS.contains(action)) {
            throw Refusal.invalid("action", "must be one of " + ACTIONS);
        }
        UUID rid = lookup.resolve(anyId);
        Snapshot before = lookup.snapshot(rid);
        String rule = "MANUAL_" + action.toUpperCase().replace('-', '_');
        Repairs.Run result = repairs.run(
                rule,
                "RESERVATION",
                rid.toString(),
                before.reservationVersion(),
                action,
                operator,
                reason,
                before.toMap(),
                () -> act(rid, action, before));
        if (result == Repairs.Run.FAILED) {
            throw Refusal.conflict(
                    "REPAIR_FAILED", "repair " + action + " of " + rid + " failed; see repair_task and the logs");
        }
        Snapshot after = lookup.snapshot(rid);
        holds.audit(
                operator,
                "REPAIR_" + action.toUpperCase().replace('-', '_'),
                ObjectKind.RESERVATION,
                rid.toString(),
                before.toMap(),
                after.toMap(),
                Map.of(
                        "query",
                        anyId,
                        "repair_id",
                        Repairs.repairId(rule, rid.toString(), before.reservationVersion(), action),
                        "result",
                        result.name()),
                reason);
        return new Repaired(rid.toString(), action, result.name(), before, after);
    }

    private String act(UUID rid, String action, Snapshot before) {
        return switch (action) {
            case "release-hold" -> freezes.release(rid, before);
            case "compensate" -> compensate(rid, before);
            case "rebuild-projection" -> rebuildProjection(rid, before);
            case "refund" -> refund(before);
            default -> throw new IllegalArgumentException(action);
        };
    }

    private String compensate(UUID rid, Snapshot before) {
        String released = freezes.release(rid, before);
        ReservationStatus status = lookup.reservation(rid).status();
        if (status == ReservationStatus.COMPENSATED) {
            return released + "; already COMPENSATED, nothing to do";
        }
        if (status != ReservationStatus.ORDER_REJECTED && status != ReservationStatus.COMPENSATING) {
            throw new IllegalStateException("only a rejected reservation is compensated; this one is " + status);
        }
        tasks.insertRelease(List.of(rid));
        String owner = "runbook-" + UUID.randomUUID();
        CompensationTasks.Claimed claimed = tasks.claim(CompensationTasks.taskId(rid), owner, Duration.ofSeconds(30))
                .orElseThrow(() -> new IllegalStateException("the compensation task is busy"));
        compensation.apply(claimed, owner);
        return released + "; compensation task applied: "
                + lookup.reservation(rid).status();
    }

    private String rebuildProjection(UUID rid, Snapshot before) {
        if (before.orderId() == null) {
            throw new IllegalStateException(
                    "no order: nothing to project (reservation " + before.reservationStatus() + ")");
        }
        String expected = OrderProjection.redisStatus(before.orderStatus());
        Reservations.Reservation res = lookup.reservation(rid);
        SkuSlot slot = lookup.slot(res);
        if (redis.sync().exists(slot.reservation(rid.toString())) == 0) {
            return "hash restored: "
                    + ScriptReply.of(projection.restoreHash(
                                    slot,
                                    rid.toString(),
                                    before.orderId().toString(),
                                    expected,
                                    res.userId(),
                                    res.requestId().toString(),
                                    res.messageId().toString()))
                            .word();
        }
        return ScriptReply.of(projection.project(
                        slot, rid.toString(), before.orderId().toString(), HashStatus.ofOrder(before.orderStatus())))
                .word();
    }

    private String refund(Snapshot before) {
        if (before.orderId() == null || before.orderStatus() != OrderStatus.CANCELLED) {
            throw new IllegalStateException("a refund is for money kept by a cancelled order");
        }
        UUID paymentId = PaymentService.paymentId(before.orderId());
        return payments.startRefund(paymentId, PaymentService.refundId(paymentId))
                ? "refund started"
                : "refund already started";
    }
}
