package io.seckill.reconcile;

import io.seckill.activity.StockAdjustments;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * An operator's stock adjustment (DESIGN.md §11.6) that stopped after PostgreSQL - the process died or Redis did
 * not answer - gets its Redis half once the watermark has passed it; the Lua keeps a marker, so twice is once.
 */
@Component
class StockAdjustmentRule {

    private final StockAdjustments adjustments;
    private final Repairs repairs;

    StockAdjustmentRule(StockAdjustments adjustments, Repairs repairs) {
        this.adjustments = adjustments;
        this.repairs = repairs;
    }

    void apply(Duration watermark, Tally tally) {
        for (UUID id : adjustments.pending(watermark)) {
            Repairs.Run run = repairs.run(
                    RepairKind.FINISH_STOCK_ADJUSTMENT.name(),
                    "STOCK_ADJUSTMENT",
                    id.toString(),
                    0L,
                    "REDIS_APPLIED",
                    Reconciler.OPERATOR,
                    "PostgreSQL applied the adjustment, Redis did not",
                    Map.of("adjustment_id", id.toString()),
                    () -> adjustments.applyRedis(id));
            tally.repaired(run, RepairKind.FINISH_STOCK_ADJUSTMENT.name());
        }
    }
}
