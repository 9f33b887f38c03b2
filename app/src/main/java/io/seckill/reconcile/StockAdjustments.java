package io.seckill.reconcile;

import java.time.Duration;
import java.util.UUID;

import org.springframework.stereotype.Component;

import io.lettuce.core.api.StatefulRedisConnection;
import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.redis.LuaScript;
import io.seckill.redis.SkuSlot;

/**
 * The Redis half of a stock adjustment: applied once per adjustment id (a marker), after its
 * PostgreSQL half committed - by the operator's command, or by reconciliation when the command
 * stopped in between.
 */
@Component
class StockAdjustments {

    private static final LuaScript ADJUST = LuaScript.load("adjust_stock");

    private final RunbookRepository repo;
    private final SaleRegistry registry;
    private final StatefulRedisConnection<String, String> redis;

    StockAdjustments(RunbookRepository repo, SaleRegistry registry, StatefulRedisConnection<String, String> redis) {
        this.repo = repo;
        this.registry = registry;
        this.redis = redis;
    }

    /** Applies the Redis half if it is not applied yet; returns what happened. */
    String applyRedis(UUID adjustmentId) {
        RunbookRepository.Adjustment adj = repo.adjustment(adjustmentId)
                .orElseThrow(() -> new IllegalStateException("no stock adjustment " + adjustmentId));
        if (adj.redisApplied()) {
            return "already applied";
        }
        Activity a = registry.load(adj.activityId()).orElseThrow();
        // a bucketed SKU takes the whole change in bucket 0
        SkuSlot slot = new SkuSlot(adj.activityId(), adj.skuId(), 0, a.sku(adj.skuId()).buckets());
        String result = LuaScript.text(ADJUST.run(redis, new String[] {slot.stock(), slot.counter(),
                slot.adjustmentMarker(adjustmentId.toString())}, Integer.toString(adj.delta()), adjustmentId.toString(),
                Long.toString(Duration.ofDays(30).toMillis())), 1);
        repo.adjustmentRedisDone(adjustmentId);
        return result;
    }
}
