package io.seckill.activity;

import java.math.BigDecimal;

/** One row of {@code sku_inventory}: PostgreSQL is the authority on stock (DESIGN.md §2.2). */
public record SkuInventory(
        long activityId,
        long skuId,
        BigDecimal price,
        int buckets,
        int initial,
        int available,
        int occupied,
        int sold) {

    public int invariantDelta() {
        return initial - available - occupied - sold;
    }
}
