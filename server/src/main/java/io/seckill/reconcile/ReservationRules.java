package io.seckill.reconcile;

import io.lettuce.core.RedisFuture;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.Activity;
import io.seckill.hold.ManualHolds;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.Judged;
import io.seckill.state.ObjectKind;
import io.seckill.state.ReservationStatus;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The per-reservation rules over a page of a SKU's reservations: their Redis statuses in one pipelined read, each
 * reservation judged by the rule that covers its PostgreSQL status, and what the rule found carried out - an
 * anomaly recorded (and a hold placed when it asks for one), a repair run once through {@link Repairs}. RESERVED
 * belongs to the deadline sweeper and MANUAL_REVIEW to a person: no rule covers them.
 */
@Component
class ReservationRules {

    private static final Logger log = LoggerFactory.getLogger(ReservationRules.class);

    private final Map<ReservationStatus, ReservationRule> byStatus = new EnumMap<>(ReservationStatus.class);
    private final Redis redis;
    private final Repairs repairs;
    private final Findings findings;
    private final ManualHolds holds;
    private final MeterRegistry meters;

    ReservationRules(
            List<ReservationRule> rules,
            Redis redis,
            Repairs repairs,
            Findings findings,
            ManualHolds holds,
            MeterRegistry meters) {
        for (ReservationRule rule : rules) {
            for (ReservationStatus s : rule.covers()) {
                ReservationRule was = byStatus.put(s, rule);
                if (was != null) {
                    throw new IllegalStateException(s + " is judged by two rules: " + was + ", " + rule);
                }
            }
        }
        this.redis = redis;
        this.repairs = repairs;
        this.findings = findings;
        this.holds = holds;
        this.meters = meters;
    }

    void judge(long activityId, Activity.Sku sku, List<Judged> rows, Tally tally) {
        List<SkuSlot> slots = new ArrayList<>(rows.size());
        List<RedisFuture<String>> states = new ArrayList<>(rows.size());
        for (Judged r : rows) {
            SkuSlot slot = SkuSlot.forUser(activityId, sku.skuId(), sku.buckets(), r.userId());
            slots.add(slot);
            states.add(redis.async().hget(slot.reservation(r.reservationId().toString()), "status"));
        }
        for (int i = 0; i < rows.size(); i++) {
            Judged row = rows.get(i);
            try {
                apply(slots.get(i), row, status(states.get(i)), tally);
            } catch (RuntimeException e) {
                // one reservation whose rule fails is counted and reported; the next full pass judges it again
                tally.repaired(RepairKind.RULE_FAILED.name());
                meters.counter("reconcile.rule.failed").increment();
                log.warn(
                        "reconcile.rule_failed reservation_id={} activity_id={} sku_id={} error_class={}: {}",
                        row.reservationId(),
                        activityId,
                        sku.skuId(),
                        e.getClass().getName(),
                        e.getMessage());
            }
        }
    }

    private void apply(SkuSlot slot, Judged r, String actual, Tally tally) {
        ReservationRule rule = byStatus.get(r.status());
        if (rule == null) {
            return;
        }
        String rid = r.reservationId().toString();
        switch (rule.judge(r, actual)) {
            case Finding.Agrees agrees -> {}
            case Finding.Anomaly a -> {
                findings.anomaly(
                        tally,
                        a.kind(),
                        ObjectKind.RESERVATION,
                        rid,
                        slot.activityId(),
                        slot.skuId(),
                        evidence(r, actual, a.expected()));
                if (a.holdReason() != null) {
                    holds.hold(ObjectKind.RESERVATION, rid, r.status().name(), a.holdReason(), Reconciler.OPERATOR);
                }
            }
            case Finding.Repair repair -> {
                Repairs.Run run = repairs.run(
                        repair.kind().name(),
                        "RESERVATION",
                        rid,
                        r.version(),
                        repair.target(),
                        Reconciler.OPERATOR,
                        repair.reason(),
                        evidence(r, actual, repair.target()),
                        () -> rule.repair(slot, r, actual, repair));
                tally.repaired(run, repair.kind().name());
            }
        }
    }

    /** A reservation hash's status from a pipelined read; null when the hash does not exist. */
    static String status(RedisFuture<String> f) {
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading Redis", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read a reservation's Redis state: " + e.getMessage(), e);
        }
    }

    static Map<String, Object> evidence(Judged r, String redisStatus, String expected) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("reservation_status", r.status());
        m.put("reservation_version", r.version());
        m.put("order_id", r.orderId() == null ? null : r.orderId().toString());
        m.put("order_status", r.orderStatus());
        m.put("task_status", r.taskStatus());
        m.put("redis_status", redisStatus);
        m.put("expected_redis_status", expected);
        return m;
    }
}
