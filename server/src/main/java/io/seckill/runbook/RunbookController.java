package io.seckill.runbook;

import io.seckill.api.Caller.Operator;
import io.seckill.config.SeckillProperties;
import io.seckill.reconcile.Reconciler;
import io.seckill.refusal.Refusal;
import java.time.Duration;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The runbook and reconciliation over the admin API (the CLI subcommands call these). */
@RestController
record RunbookController(
        Inspection inspection,
        Freezes freezes,
        ManualRepairs repairs,
        StockChange stock,
        CloseOut closeOut,
        InvariantsReport invariants,
        Reconciler reconciler,
        SeckillProperties props) {

    static final long MAX_WATERMARK_SECONDS = 30L * 24 * 3600;
    static final long MAX_DRAIN_SECONDS = 3600;
    static final int MAX_ADJUST = 100_000_000;

    record Reason(String reason) {}

    record RepairRequest(String action, String reason) {}

    record AdjustRequest(Integer delta, String reason, String adjustmentId) {}

    @GetMapping("/api/v1/admin/inspect/{id}")
    Inspection.Evidence inspect(@PathVariable String id) {
        return inspection.inspect(id);
    }

    @PostMapping("/api/v1/admin/freeze/{id}")
    Freezes.Frozen freeze(Operator operator, @PathVariable String id, @RequestBody(required = false) Reason body) {
        return freezes.freeze(id, operator.name(), body == null ? null : body.reason());
    }

    @PostMapping("/api/v1/admin/repair/{id}")
    ManualRepairs.Repaired repair(
            Operator operator, @PathVariable String id, @RequestBody(required = false) RepairRequest body) {
        if (body == null || body.action() == null) {
            throw Refusal.invalid("action", "is required, one of " + ManualRepairs.ACTIONS);
        }
        return repairs.repair(id, body.action(), operator.name(), body.reason());
    }

    @GetMapping("/api/v1/admin/invariants")
    InvariantsReport.Verdict invariants(@RequestParam(name = "activity_id", required = false) Long activityId) {
        return invariants.check(activityId);
    }

    @PostMapping("/api/v1/admin/reconcile")
    Reconciler.Report reconcile(
            @RequestParam(name = "activity_id", required = false) Long activityId,
            @RequestParam(name = "watermark_seconds", required = false) Long watermarkSeconds) {
        if (watermarkSeconds != null && (watermarkSeconds < 0 || watermarkSeconds > MAX_WATERMARK_SECONDS)) {
            throw Refusal.invalid("watermark_seconds", "must be 0.." + MAX_WATERMARK_SECONDS);
        }
        Duration watermark =
                watermarkSeconds == null ? props.reconcile().watermark() : Duration.ofSeconds(watermarkSeconds);
        return reconciler.run(activityId, watermark);
    }

    @PostMapping("/api/v1/admin/activities/{activityId}/skus/{skuId}/adjust-stock")
    StockChange.Adjusted adjust(
            Operator operator,
            @PathVariable long activityId,
            @PathVariable long skuId,
            @RequestBody(required = false) AdjustRequest body) {
        if (body == null || body.delta() == null) {
            throw Refusal.invalid("delta", "is required (a signed number of units)");
        }
        if (Math.abs((long) body.delta()) > MAX_ADJUST) {
            throw Refusal.invalid("delta", "must be within +-" + MAX_ADJUST + " units");
        }
        UUID id;
        try {
            id = body.adjustmentId() == null ? UUID.randomUUID() : UUID.fromString(body.adjustmentId());
        } catch (IllegalArgumentException e) {
            throw Refusal.invalid("adjustment_id", "must be a UUID");
        }
        return stock.adjust(activityId, skuId, body.delta(), id, operator.name(), body.reason());
    }

    @PostMapping("/api/v1/admin/activities/{activityId}/close-out")
    CloseOut.Closed closeOut(
            Operator operator,
            @PathVariable long activityId,
            @RequestBody(required = false) Reason body,
            @RequestParam(name = "drain_seconds", defaultValue = "60") long drainSeconds)
            throws InterruptedException {
        if (drainSeconds < 0 || drainSeconds > MAX_DRAIN_SECONDS) {
            throw Refusal.invalid("drain_seconds", "must be 0.." + MAX_DRAIN_SECONDS);
        }
        return closeOut.closeOut(
                activityId, operator.name(), body == null ? null : body.reason(), Duration.ofSeconds(drainSeconds));
    }
}
