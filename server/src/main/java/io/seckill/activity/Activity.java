package io.seckill.activity;

import io.seckill.redis.SkuSlot;
import io.seckill.state.SaleStatus;
import java.math.BigDecimal;
import java.time.Duration;
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

    /** How long a sale's reservations are judged after it ends (ActivityRepository's live sales, SaleLivenessIT). */
    public static final Duration JUDGED_AFTER_LAST_DEADLINE = Duration.ofDays(7);

    /**
     * The last moment a worker of this sale may still read a reservation's Redis hash: past its end, the business
     * deadline and the payment timeout of its last reservation, plus the week the sweeper and the reconciler keep
     * judging it.
     */
    public Instant judgedUntil() {
        return endsAt.plusSeconds((long) businessDeadlineSeconds + paymentTimeoutSeconds)
                .plus(JUDGED_AFTER_LAST_DEADLINE);
    }

    /**
     * The expiry of a reservation hash (and its marker) that reached a terminal state at {@code now}: until the
     * sale is no longer judged, and never under a week. A shorter one would let the hash of a long sale vanish
     * while the reconciler still reads it - and take its loss for a failover's.
     */
    public Duration terminalKeyTtl(Instant now) {
        Duration untilJudged = Duration.between(now, judgedUntil());
        return untilJudged.compareTo(JUDGED_AFTER_LAST_DEADLINE) > 0 ? untilJudged : JUDGED_AFTER_LAST_DEADLINE;
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
