package io.seckill.activity;

import io.seckill.redis.SkuSlot;
import io.seckill.state.SaleStatus;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/** A sale: its window, deadlines and SKUs, as stored in PostgreSQL. */
public record Activity(
        long activityId,
        String name,
        SaleStatus status,
        Instant startsAt,
        Instant endsAt,
        int businessDeadlineSeconds,
        int paymentTimeoutSeconds,
        List<Sku> skus) {

    public record Sku(long skuId, BigDecimal price, int buckets, int initialStock) {}

    /** The same sale in another state (the shape never changes; the state does). */
    public Activity withStatus(SaleStatus newStatus) {
        return newStatus == status
                ? this
                : new Activity(
                        activityId,
                        name,
                        newStatus,
                        startsAt,
                        endsAt,
                        businessDeadlineSeconds,
                        paymentTimeoutSeconds,
                        skus);
    }

    /** Every Redis slot of one SKU of this sale. */
    public List<SkuSlot> slots(Sku sku) {
        return SkuSlot.all(activityId, sku.skuId(), sku.buckets());
    }

    /** Every Redis slot of this sale: each bucket of each SKU. */
    public List<SkuSlot> slots() {
        return skus.stream().flatMap(s -> slots(s).stream()).toList();
    }

    public Sku sku(long skuId) {
        for (Sku s : skus) {
            if (s.skuId() == skuId) {
                return s;
            }
        }
        return null;
    }
}
