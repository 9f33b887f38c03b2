package io.seckill.runbook;

import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.activity.SaleRegistry;
import io.seckill.activity.StockAdjustments;
import io.seckill.hold.ManualHolds;
import io.seckill.refusal.Refusal;
import io.seckill.state.ObjectKind;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/** An operator changes a SKU's stock mid-sale: through the ledger, PostgreSQL then Redis, once per adjustment id. */
@Service
public record StockChange(
        StockAdjustments adjustments, SaleRegistry registry, ActivityService activities, ManualHolds holds) {

    private static final Logger log = LoggerFactory.getLogger(StockChange.class);

    /** An adjustment's answer: its id and delta, what Redis said, and the SKU's inventory after it. */
    public record Adjusted(
            String adjustmentId, int delta, String redis, List<ActivityService.InventoryRow> inventory) {}

    public Adjusted adjust(long activityId, long skuId, int delta, UUID adjustmentId, String operator, String reason) {
        Lookup.requireReason(reason);
        if (delta == 0) {
            throw Refusal.invalid("delta", "must not be zero");
        }
        Activity a = registry.load(activityId)
                .orElseThrow(() -> Refusal.notFound("ACTIVITY_NOT_FOUND", "no activity " + activityId));
        if (a.sku(skuId) == null) {
            throw Refusal.notFound("SKU_NOT_FOUND", "no sku " + skuId + " in activity " + activityId, "sku_id");
        }
        List<ActivityService.InventoryView> before = activities.inventoryView(activityId);
        switch (adjustments.record(activityId, skuId, delta, adjustmentId, operator, reason)) {
            case StockAdjustments.BelowZero z ->
                throw Refusal.conflict(
                        "STOCK_ADJUSTMENT_REFUSED",
                        "available stock of sku " + z.skuId() + " cannot go below zero",
                        "delta");
            case StockAdjustments.IdConflict c ->
                throw Refusal.conflict(
                        "ADJUSTMENT_ID_CONFLICT",
                        "adjustment " + adjustmentId + " was recorded as " + c.delta() + " units of sku " + c.skuId()
                                + " in activity " + c.activityId(),
                        "adjustment_id");
            case StockAdjustments.Applied applied ->
                log.debug("runbook.adjustment_recorded adjustment_id={} now={}", adjustmentId, applied.now());
        }
        String redisResult = adjustments.applyRedis(adjustmentId);
        List<ActivityService.InventoryView> after = activities.inventoryView(activityId);
        holds.audit(
                operator,
                "ADJUST_STOCK",
                ObjectKind.SKU,
                activityId + ":" + skuId,
                before.toString(),
                after.toString(),
                Map.of("adjustment_id", adjustmentId.toString(), "delta", delta, "redis", redisResult),
                reason);
        log.warn(
                "runbook.adjust_stock activity_id={} sku_id={} delta={} adjustment_id={} operator={} reason={}",
                activityId,
                skuId,
                delta,
                adjustmentId,
                operator,
                reason);
        return new Adjusted(
                adjustmentId.toString(),
                delta,
                redisResult,
                after.stream()
                        .filter(v -> v.pg().skuId() == skuId)
                        .map(ActivityService.InventoryRow::of)
                        .toList());
    }
}
