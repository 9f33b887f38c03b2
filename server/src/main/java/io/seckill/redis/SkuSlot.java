package io.seckill.redis;

/**
 * The Redis home of one SKU (or one bucket of a hot SKU split into buckets, DESIGN.md §8.2): every key
 * carries the same hash tag, so one Lua script can touch them all on Redis Cluster. A user always
 * has the same home bucket (hash of the user id): their reservation lives there, and a unit from another
 * bucket is transferred to it when it has none (docs/SCALE-OUT.md).
 */
public record SkuSlot(long activityId, long skuId, int bucket, int buckets) {

    public SkuSlot {
        if (buckets < 1 || bucket < 0 || bucket >= buckets) {
            throw new IllegalArgumentException("bucket " + bucket + " of " + buckets);
        }
    }

    /** Every bucket of one SKU, in bucket order. */
    public static java.util.List<SkuSlot> all(long activityId, long skuId, int buckets) {
        java.util.List<SkuSlot> out = new java.util.ArrayList<>(buckets);
        for (int b = 0; b < buckets; b++) {
            out.add(new SkuSlot(activityId, skuId, b, buckets));
        }
        return out;
    }

    /** A SKU whose stock is kept in one slot (not split into buckets). */
    public static SkuSlot single(long activityId, long skuId) {
        return new SkuSlot(activityId, skuId, 0, 1);
    }

    /** Bucket {@code b} of the same SKU. */
    public SkuSlot sibling(int b) {
        return new SkuSlot(activityId, skuId, b, buckets);
    }

    public static SkuSlot forUser(long activityId, long skuId, int buckets, long userId) {
        return new SkuSlot(activityId, skuId, bucketOf(userId, buckets), buckets);
    }

    static int bucketOf(long userId, int buckets) {
        if (buckets == 1) {
            return 0;
        }
        long h = userId * 0x9E3779B97F4A7C15L;
        return (int) Math.floorMod(h ^ (h >>> 32), (long) buckets);
    }

    public String tag() {
        return buckets == 1
                ? "{" + activityId + ":" + skuId + "}"
                : "{" + activityId + ":" + skuId + ":" + bucket + "}";
    }

    private String prefix() {
        return "seckill:" + tag() + ":";
    }

    /** A SCAN pattern matching every key of every slot of sale {@code activityId}: their hash tags start alike. */
    public static String salePattern(long activityId) {
        return "seckill:{" + activityId + ":*";
    }

    /** A SCAN/KEYS pattern matching every key of this slot. */
    public String keyPattern() {
        return prefix() + "*";
    }

    /** Units Redis may still admit (a string counter). */
    public String stock() {
        return prefix() + "stock";
    }

    /** The slot's books: initial, open_reserved, committed. */
    public String counter() {
        return prefix() + "counter";
    }

    /** The sale's window and status as admission reads them. */
    public String meta() {
        return prefix() + "meta";
    }

    /** Reservations whose order message is not known to be sent, by when to look again. */
    public String sendDue() {
        return prefix() + "send_due";
    }

    /** Entries of send_due whose recovery fields could not be read: out of the work, kept for a person. */
    public String sendAside() {
        return prefix() + "send_aside";
    }

    /** Undecided reservations by business deadline (the deadline sweeper's index). */
    public String deadlines() {
        return prefix() + "deadline";
    }

    /** One reservation's hash, with every field recovery needs. */
    public String reservation(String reservationId) {
        return prefix() + "reservation:" + reservationId;
    }

    /** A buyer's request id mapped to the reservation it made (a replay answers the same). */
    public String request(long userId, String requestId) {
        return prefix() + "request:" + userId + ":" + requestId;
    }

    /** The one-attempt-per-user mark. */
    public String user(long userId) {
        return prefix() + "user:" + userId;
    }

    /** Units this bucket gave up to another bucket and that have not landed there yet, by transfer id. */
    public String transfers() {
        return prefix() + "transfers";
    }

    /** Set once when a unit transferred from another bucket landed in this one. */
    public String transferMarker(String transferId) {
        return prefix() + "transfer:" + transferId;
    }

    /** Set once when an operator's stock adjustment was applied to this slot. */
    public String adjustmentMarker(String adjustmentId) {
        return prefix() + "adjust:" + adjustmentId;
    }

    /** Set once when a cancelled order's unit went back to {@link #stock()}. */
    public String releaseMarker(String reservationId) {
        return prefix() + "release:" + reservationId;
    }

    /** Set once when a rejected reservation's unit went back to {@link #stock()}. */
    public String compensationMarker(String reservationId) {
        return prefix() + "comp:" + reservationId;
    }
}
