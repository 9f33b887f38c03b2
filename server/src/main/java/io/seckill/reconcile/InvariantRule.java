package io.seckill.reconcile;

import io.seckill.activity.ActivityService;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.state.ObjectKind;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * Each system's own books (DESIGN.md §13.4): PostgreSQL's {@code initial = available + committed} and Redis's
 * per-bucket equation. Neither is repaired automatically: a broken one is an anomaly with both sides as evidence.
 */
@Component
class InvariantRule {

    private final Findings findings;

    InvariantRule(Findings findings) {
        this.findings = findings;
    }

    /** Records PostgreSQL's invariant if broken; returns its delta. */
    long postgres(ActivityService.InventoryView view, Tally tally) {
        long delta = view.pg().invariantDelta();
        if (delta != 0) {
            record(view, AnomalyKind.PG_INVARIANT_BROKEN, Map.of("pg", view.pg().toString()), tally);
        }
        return delta;
    }

    /** Records Redis's internal invariant if broken; returns its delta. */
    long redis(ActivityService.InventoryView view, Tally tally) {
        long delta = view.redis().invariantDelta();
        if (delta != 0) {
            record(
                    view,
                    AnomalyKind.REDIS_INTERNAL_INVARIANT_BROKEN,
                    Map.of("redis", view.redis().toString()),
                    tally);
        }
        return delta;
    }

    private void record(ActivityService.InventoryView view, AnomalyKind kind, Map<String, ?> evidence, Tally tally) {
        long activityId = view.pg().activityId();
        long skuId = view.pg().skuId();
        findings.anomaly(tally, kind, ObjectKind.SKU, activityId + ":" + skuId, activityId, skuId, evidence);
    }
}
