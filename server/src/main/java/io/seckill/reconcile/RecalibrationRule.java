package io.seckill.reconcile;

import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * When a live SKU's Redis counters are set again from PostgreSQL ({@link RedisRecalibration}): after Redis lost
 * the SKU's keys, after it lost reservations PostgreSQL holds (an open {@code REDIS_RESERVATIONS_LOST} keeps the
 * recalibration due until one succeeds), or on a drift ({@link DriftRule}). A recalibration that finds the
 * counters right or sets them resolves the anomalies that asked for it.
 */
@Component
class RecalibrationRule {

    private static final Logger log = LoggerFactory.getLogger(RecalibrationRule.class);
    static final String RECALIBRATED = "RECALIBRATED";
    static final String UNCHANGED = "UNCHANGED";

    private final RedisRecalibration recalibration;
    private final Anomalies anomalies;
    private final DriftRule driftRule;

    RecalibrationRule(RedisRecalibration recalibration, Anomalies anomalies, DriftRule driftRule) {
        this.recalibration = recalibration;
        this.anomalies = anomalies;
        this.driftRule = driftRule;
    }

    /** One step of the recovery of a SKU whose keys Redis lost; RECALIBRATED when done, else why not yet. */
    String recoverLostKeys(Activity a, Activity.Sku sku, Tally tally) {
        String state = recalibration.recover(a, sku, tally.anomalies);
        if (RECALIBRATED.equals(state)) {
            tally.repaired(RepairKind.REDIS_RECALIBRATION.name());
        }
        return state;
    }

    /** Slots a recalibration paused and left paused (its reconciler stopped): admitting again. */
    void resumeStale(Activity a, Activity.Sku sku, Tally tally) {
        if (recalibration.resumeStale(a, sku) > 0) {
            tally.repaired(RepairKind.RESUME_PAUSED_SLOT.name());
        }
    }

    /** What came of the rule: the recalibration's answer (null when none was due) and the equations after it. */
    record Outcome(String state, long cross) {}

    Outcome recalibrateIfDue(
            Activity a,
            Activity.Sku sku,
            DriftRule.Result drift,
            Supplier<ActivityService.InventoryView> read,
            Tally tally) {
        long activityId = a.activityId();
        String key = activityId + ":" + sku.skuId();
        boolean drifted = drift.drift() != DriftRule.Drift.NONE;
        if (!a.status().warmed() || !(drifted || anomalies.isOpen(AnomalyKind.REDIS_RESERVATIONS_LOST, key))) {
            return new Outcome(null, drift.cross());
        }
        String reason = switch (drift.drift()) {
            case NONE -> "Redis had lost reservations PostgreSQL holds";
            case CROSS_SYSTEM_DELTA -> "Redis committed differs from PostgreSQL by " + drift.cross();
            case SUPPLY_DELTA -> "Redis holds " + drift.supply() + " units more than PostgreSQL's initial";
        };
        String live = recalibration.recalibrateLive(a, sku, reason, drift.evidence());
        if (RECALIBRATED.equals(live)) {
            tally.repaired(RepairKind.REDIS_RECALIBRATION.name());
        }
        long cross = drift.cross();
        if (RECALIBRATED.equals(live) || UNCHANGED.equals(live)) {
            ActivityService.InventoryView view = read.get();
            cross = view.crossSystemDelta();
            String resolution =
                    "Redis counters " + (UNCHANGED.equals(live) ? "agreed with" : "recalibrated from") + " PostgreSQL";
            anomalies.resolve(AnomalyKind.REDIS_RESERVATIONS_LOST, key, resolution);
            if (driftRule.supplyDelta(activityId, sku, view) == 0) {
                anomalies.resolve(AnomalyKind.SUPPLY_DELTA, key, resolution);
            }
            if (cross == 0 && anomalies.resolve(AnomalyKind.CROSS_SYSTEM_DELTA, key, resolution)) {
                log.info(
                        "reconcile.cross_system_delta_resolved activity_id={} sku_id={} recalibration={}",
                        activityId,
                        sku.skuId(),
                        live);
            }
        }
        return new Outcome(live, cross);
    }
}
