package io.seckill.activity;

import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A change of a SKU's stock mid-sale, once per adjustment id: the PostgreSQL half (the adjustment
 * row, the stock and an ADJUST ledger row in one transaction), then the Redis half (applied once, a
 * marker) - by the operator's command, or by reconciliation when the command stopped in between.
 */
@Component
public record StockAdjustments(
        StockAdjustmentRepository repo,
        InventoryRepository inventory,
        LedgerRepository ledger,
        SaleRegistry registry,
        TransactionTemplate tx,
        Redis redis) {

    private static final LuaScript ADJUST = LuaScript.load("adjust_stock");

    /** What the PostgreSQL half did. */
    public sealed interface Recorded {}

    /** This call recorded it, or an earlier call recorded the same change under this id. */
    public record Applied(boolean now) implements Recorded {}

    /** Available stock would go below zero: nothing was written. */
    public record BelowZero(long skuId) implements Recorded {}

    /** The id was recorded for a different change. */
    public record IdConflict(long activityId, long skuId, int delta) implements Recorded {}

    /** The PostgreSQL half, in one transaction; repeating an id repeats nothing. */
    public Recorded record(long activityId, long skuId, int delta, UUID adjustmentId, String operator, String reason) {
        Recorded r = tx.execute(s -> {
            if (!repo.insert(adjustmentId, activityId, skuId, delta, reason, operator)) {
                return new Applied(false);
            }
            if (!inventory.adjust(activityId, skuId, delta)) {
                s.setRollbackOnly();
                return new BelowZero(skuId);
            }
            ledger.adjust(adjustmentId, activityId, skuId, delta);
            return new Applied(true);
        });
        if (r instanceof Applied) {
            StockAdjustmentRepository.Adjustment adj = repo.find(adjustmentId).orElseThrow();
            if (adj.activityId() != activityId || adj.skuId() != skuId || adj.delta() != delta) {
                return new IdConflict(adj.activityId(), adj.skuId(), adj.delta());
            }
        }
        return r;
    }

    /** Applies the Redis half if it is not applied yet; returns what happened. */
    public String applyRedis(UUID adjustmentId) {
        StockAdjustmentRepository.Adjustment adj = repo.find(adjustmentId)
                .orElseThrow(() -> new IllegalStateException("no stock adjustment " + adjustmentId));
        if (adj.redisApplied()) {
            return "already applied";
        }
        Activity a = registry.load(adj.activityId()).orElseThrow();
        // a bucketed SKU takes the whole change in bucket 0
        SkuSlot slot =
                new SkuSlot(adj.activityId(), adj.skuId(), 0, a.sku(adj.skuId()).buckets());
        String result = ScriptReply.of(ADJUST.run(
                        redis,
                        new String[] {slot.stock(), slot.counter(), slot.adjustmentMarker(adjustmentId.toString())},
                        Integer.toString(adj.delta()),
                        adjustmentId.toString(),
                        Long.toString(Duration.ofDays(30).toMillis())))
                .word();
        repo.redisDone(adjustmentId);
        return result;
    }

    /** Adjustments whose PostgreSQL half committed longer than {@code olderThan} ago and whose Redis half did not. */
    public List<UUID> pending(Duration olderThan) {
        return repo.pending(olderThan);
    }

    /** Adjustments of the SKU whose Redis half has not been applied yet, however recent. */
    public long unapplied(long activityId, long skuId) {
        return repo.unapplied(activityId, skuId);
    }
}
