package io.seckill.activity;

import io.seckill.mq.MqTopology;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.redis.SlotCounters;
import io.seckill.refusal.Input;
import io.seckill.refusal.Refusal;
import io.seckill.state.SaleStatus;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Creating, warming, opening and closing sales. PostgreSQL holds the decision (guarded status
 * changes); Redis is warmed from it and refuses admission unless its own meta says OPEN.
 */
@Service
public class ActivityService {

    private static final Logger log = LoggerFactory.getLogger(ActivityService.class);
    private static final LuaScript WARM = LuaScript.load("warm");
    private static final LuaScript SET_STATUS = LuaScript.load("set_sale_status");
    /** numeric(12,2) holds at most this. */
    static final BigDecimal MAX_PRICE = new BigDecimal("9999999999.99");
    /** A deadline or payment timeout of more than 30 days is a typo, not a flash sale. */
    static final int MAX_DEADLINE_SECONDS = 30 * 24 * 3600;

    static final Instant EARLIEST = Instant.parse("2000-01-01T00:00:00Z");
    static final Instant LATEST = Instant.parse("2200-01-01T00:00:00Z");

    private final ActivityRepository activities;
    private final InventoryRepository inventory;
    private final SaleRegistry registry;
    private final TransactionTemplate tx;
    private final Redis redis;
    private final MqTopology topology;

    ActivityService(
            ActivityRepository activities,
            InventoryRepository inventory,
            SaleRegistry registry,
            TransactionTemplate tx,
            Redis redis,
            MqTopology topology) {
        this.topology = topology;
        this.activities = activities;
        this.inventory = inventory;
        this.registry = registry;
        this.tx = tx;
        this.redis = redis;
    }

    public record NewSku(Long skuId, BigDecimal price, Integer stock, Integer buckets) {}

    public record NewActivity(
            Long activityId,
            String name,
            Instant startsAt,
            Instant endsAt,
            Integer businessDeadlineSeconds,
            Integer paymentTimeoutSeconds,
            List<NewSku> skus) {}

    public Activity create(NewActivity in) {
        Activity a = validate(in);
        tx.executeWithoutResult(s -> {
            if (!activities.insert(a)) {
                throw new Refusal(
                        Refusal.Kind.CONFLICT, "ACTIVITY_EXISTS", "activity " + a.activityId() + " already exists");
            }
            for (Activity.Sku sku : a.skus()) {
                inventory.insert(a.activityId(), sku.skuId(), sku.price(), sku.buckets(), sku.initialStock());
            }
        });
        registry.forget(a.activityId());
        log.info(
                "activity.created activity_id={} skus={}",
                a.activityId(),
                a.skus().size());
        return a;
    }

    /** Copies PostgreSQL stock into every Redis slot of the sale. Refused while the sale is open. */
    public void warm(long activityId) {
        Activity a = registry.load(activityId).orElseThrow(() -> notFound(activityId));
        try {
            topology.ensure();
        } catch (MqTopology.NotReady e) {
            throw sendPathNotReady(activityId, e.getMessage());
        }
        if (!activities.transition(activityId, SaleStatus.WARMED)) {
            throw new Refusal(
                    Refusal.Kind.CONFLICT,
                    "ACTIVITY_NOT_WARMABLE",
                    "activity " + activityId + " is " + a.status() + "; only a DRAFT or WARMED sale can be warmed");
        }
        for (SkuInventory inv : inventory.forActivity(activityId)) {
            int committed = inv.occupied() + inv.sold();
            for (SkuSlot slot : SkuSlot.all(activityId, inv.skuId(), inv.buckets())) {
                List<Object> r = WARM.run(
                        redis,
                        new String[] {slot.stock(), slot.counter(), slot.meta(), slot.transfers()},
                        Integer.toString(share(inv.available(), slot.bucket(), inv.buckets())),
                        Integer.toString(share(committed, slot.bucket(), inv.buckets())),
                        Long.toString(a.startsAt().toEpochMilli()),
                        Long.toString(a.endsAt().toEpochMilli()));
                if (ScriptReply.of(r).code() != 1) {
                    throw new Refusal(
                            Refusal.Kind.CONFLICT,
                            "ACTIVITY_NOT_WARMABLE",
                            "sku " + inv.skuId() + " bucket " + slot.bucket() + ": "
                                    + ScriptReply.of(r).word());
                }
            }
        }
        log.info("activity.warmed activity_id={}", activityId);
    }

    /** Opens the sale only when every SKU's Redis counters equal PostgreSQL. */
    public void open(long activityId) {
        registry.load(activityId).orElseThrow(() -> notFound(activityId));
        List<String> sendPath = topology.problems();
        if (!sendPath.isEmpty()) {
            throw sendPathNotReady(activityId, String.join("; ", sendPath));
        }
        for (InventoryView v : inventoryView(activityId)) {
            SkuInventory pg = v.pg();
            RedisCounters r = v.redis();
            boolean equal = r.warmedBuckets() == pg.buckets()
                    && r.initial() == pg.initial()
                    && r.stock() == pg.available()
                    && r.openReserved() == 0
                    && r.committed() == pg.occupied() + pg.sold();
            if (!equal) {
                throw new Refusal(
                        Refusal.Kind.CONFLICT,
                        "REDIS_NOT_WARMED",
                        "sku " + pg.skuId() + ": Redis " + r + " does not match PostgreSQL " + pg,
                        "sku_id",
                        Map.of("sku_id", pg.skuId()));
            }
        }
        if (!activities.transition(activityId, SaleStatus.OPEN)) {
            throw new Refusal(
                    Refusal.Kind.CONFLICT, "ACTIVITY_NOT_WARMED", "activity " + activityId + " is not warmed");
        }
        setStatus(activityId, SaleStatus.OPEN);
        log.info("activity.opened activity_id={}", activityId);
    }

    public void close(long activityId) {
        registry.load(activityId).orElseThrow(() -> notFound(activityId));
        if (!activities.transition(activityId, SaleStatus.CLOSED)) {
            throw new Refusal(Refusal.Kind.CONFLICT, "ACTIVITY_NOT_OPEN", "activity " + activityId + " is not open");
        }
        setStatus(activityId, SaleStatus.CLOSED);
        log.info("activity.closed activity_id={}", activityId);
    }

    /** The sale was closed out: its Redis keys expire, its gauges are gone. */
    public void closedOut(long activityId) {
        activities.closedOut(activityId);
    }

    private void setStatus(long activityId, SaleStatus status) {
        for (SkuInventory inv : inventory.forActivity(activityId)) {
            for (SkuSlot slot : SkuSlot.all(activityId, inv.skuId(), inv.buckets())) {
                List<Object> r = SET_STATUS.run(redis, new String[] {slot.meta()}, status.name());
                if (ScriptReply.of(r).code() != 1) {
                    throw new Refusal(
                            Refusal.Kind.CONFLICT,
                            "REDIS_NOT_WARMED",
                            "sku " + inv.skuId() + " bucket " + slot.bucket() + " is not warmed");
                }
            }
        }
    }

    /**
     * A SKU's Redis counters summed over its buckets. {@code inTransit}: units one bucket gave up to another
     * and that have not landed yet (docs/SCALE-OUT.md); they count in neither bucket's {@code initial}.
     */
    public record RedisCounters(
            int warmedBuckets, long initial, long stock, long openReserved, long committed, long inTransit) {
        public long invariantDelta() {
            return initial - stock - openReserved - committed;
        }
    }

    public record InventoryView(SkuInventory pg, RedisCounters redis) {
        /** Redis committed - (PG occupied + sold): zero once the pipeline is quiet. */
        public long crossSystemDelta() {
            return redis.committed() - (pg.occupied() + pg.sold());
        }

        /**
         * The supply equation across buckets: Redis initial summed over the buckets + units in transit between
         * them - PG initial. Zero once no stock adjustment or transfer is half done; a unit that appears in Redis
         * without PostgreSQL having it (a transfer, landing or adjustment a failover half lost) makes it positive.
         */
        public long supplyDelta() {
            return redis.initial() + redis.inTransit() - pg.initial();
        }
    }

    /** A SKU's PostgreSQL stock columns. */
    public record PgCounts(int initial, int available, int occupied, int sold) {
        public static PgCounts of(SkuInventory pg) {
            return new PgCounts(pg.initial(), pg.available(), pg.occupied(), pg.sold());
        }
    }

    /** A SKU's Redis counters summed over its buckets, as an operator reads them. */
    public record RedisNumbers(long initial, long stock, long openReserved, long committed, int warmedBuckets) {
        public static RedisNumbers of(RedisCounters r) {
            return new RedisNumbers(r.initial(), r.stock(), r.openReserved(), r.committed(), r.warmedBuckets());
        }
    }

    /** One SKU of {@code GET .../inventory}: PostgreSQL beside Redis, and the equations' deltas (zero when whole). */
    public record InventoryRow(
            long skuId,
            PgCounts pg,
            RedisNumbers redis,
            long pgInvariantDelta,
            long redisInvariantDelta,
            long crossSystemDelta) {
        public static InventoryRow of(InventoryView v) {
            return new InventoryRow(
                    v.pg().skuId(),
                    PgCounts.of(v.pg()),
                    RedisNumbers.of(v.redis()),
                    v.pg().invariantDelta(),
                    v.redis().invariantDelta(),
                    v.crossSystemDelta());
        }
    }

    /** PostgreSQL columns beside the summed Redis counters, per SKU. */
    public List<InventoryView> inventoryView(long activityId) {
        List<InventoryView> out = new ArrayList<>();
        for (SkuInventory inv : inventory.forActivity(activityId)) {
            out.add(new InventoryView(inv, redisCounters(inv)));
        }
        return out;
    }

    /** One SKU's view: its PostgreSQL row and only its own Redis counters (another SKU's keys are not read). */
    public Optional<InventoryView> inventoryView(long activityId, long skuId) {
        return inventory.forSku(activityId, skuId).map(inv -> new InventoryView(inv, redisCounters(inv)));
    }

    /** One bucket's Redis counters (a SKU split over several slots has one per bucket). */
    public record BucketCounters(
            int bucket,
            boolean warmed,
            long initial,
            long stock,
            long openReserved,
            long committed,
            long transferredOut) {}

    public List<BucketCounters> bucketCounters(SkuInventory inv) {
        List<BucketCounters> out = new ArrayList<>(inv.buckets());
        for (SkuSlot slot : SkuSlot.all(inv.activityId(), inv.skuId(), inv.buckets())) {
            SlotCounters c = SlotCounters.read(redis, slot);
            out.add(new BucketCounters(
                    slot.bucket(),
                    c.warmed(),
                    c.initialUnits(),
                    c.stockUnits(),
                    c.openReservedUnits(),
                    c.committedUnits(),
                    c.transferredOut()));
        }
        return out;
    }

    public RedisCounters redisCounters(SkuInventory inv) {
        List<BucketCounters> buckets = bucketCounters(inv);
        return new RedisCounters(
                (int) buckets.stream().filter(BucketCounters::warmed).count(),
                buckets.stream().mapToLong(BucketCounters::initial).sum(),
                buckets.stream().mapToLong(BucketCounters::stock).sum(),
                buckets.stream().mapToLong(BucketCounters::openReserved).sum(),
                buckets.stream().mapToLong(BucketCounters::committed).sum(),
                buckets.stream().mapToLong(BucketCounters::transferredOut).sum());
    }

    /** Bucket {@code b}'s share of {@code total} units split over {@code n} buckets. */
    public static int share(int total, int b, int n) {
        return total / n + (b < total % n ? 1 : 0);
    }

    /** The broker cannot take the sale's order messages yet: buyers would be admitted into a stalled pipeline. */
    private static Refusal sendPathNotReady(long activityId, String problems) {
        log.warn("activity.send_path_not_ready activity_id={} problems={}", activityId, problems);
        return new Refusal(
                Refusal.Kind.UNAVAILABLE,
                "SEND_PATH_NOT_READY",
                "the order topics cannot take messages: " + problems,
                null,
                Map.of("problems", problems));
    }

    private static Refusal notFound(long activityId) {
        return new Refusal(
                Refusal.Kind.NOT_FOUND, "ACTIVITY_NOT_FOUND", "no activity " + activityId, "activity_id", Map.of());
    }

    static Activity validate(NewActivity in) {
        if (in == null) {
            throw Refusal.invalid("body", "is required");
        }
        if (in.activityId() == null || in.activityId() <= 0) {
            throw Refusal.invalid("activity_id", "must be a positive integer");
        }
        Input.text("name", in.name(), 200);
        if (in.startsAt() == null) {
            throw Refusal.invalid("starts_at", "is required (ISO-8601 instant)");
        }
        if (in.endsAt() == null || !in.endsAt().isAfter(in.startsAt())) {
            throw Refusal.invalid("ends_at", "is required and must be after starts_at");
        }
        if (in.startsAt().isBefore(EARLIEST) || in.endsAt().isAfter(LATEST)) {
            throw Refusal.invalid(
                    in.startsAt().isBefore(EARLIEST) ? "starts_at" : "ends_at",
                    "must lie between " + EARLIEST + " and " + LATEST);
        }
        if (in.businessDeadlineSeconds() == null
                || in.businessDeadlineSeconds() <= 0
                || in.businessDeadlineSeconds() > MAX_DEADLINE_SECONDS) {
            throw Refusal.invalid("business_deadline_seconds", "must be 1.." + MAX_DEADLINE_SECONDS + " seconds");
        }
        if (in.paymentTimeoutSeconds() == null
                || in.paymentTimeoutSeconds() <= 0
                || in.paymentTimeoutSeconds() > MAX_DEADLINE_SECONDS) {
            throw Refusal.invalid("payment_timeout_seconds", "must be 1.." + MAX_DEADLINE_SECONDS + " seconds");
        }
        if (in.skus() == null || in.skus().isEmpty()) {
            throw Refusal.invalid("skus", "at least one SKU is required");
        }
        List<Activity.Sku> skus = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < in.skus().size(); i++) {
            NewSku s = in.skus().get(i);
            String f = "skus[" + i + "].";
            if (s == null || s.skuId() == null || s.skuId() <= 0) {
                throw Refusal.invalid(f + "sku_id", "must be a positive integer");
            }
            if (!seen.add(s.skuId())) {
                throw Refusal.invalid(f + "sku_id", "duplicate sku " + s.skuId());
            }
            if (s.price() == null
                    || s.price().signum() < 0
                    || s.price().scale() > 2
                    || s.price().compareTo(MAX_PRICE) > 0) {
                throw Refusal.invalid(
                        f + "price",
                        "must be a non-negative amount with at most 2 decimals, at most " + MAX_PRICE.toPlainString());
            }
            if (s.stock() == null || s.stock() < 0) {
                throw Refusal.invalid(f + "stock", "must be a non-negative integer");
            }
            int buckets = s.buckets() == null ? 1 : s.buckets();
            if (buckets < 1 || buckets > 1024) {
                throw Refusal.invalid(f + "buckets", "must be 1..1024");
            }
            skus.add(new Activity.Sku(s.skuId(), s.price(), buckets, s.stock()));
        }
        return new Activity(
                in.activityId(),
                in.name(),
                SaleStatus.DRAFT,
                in.startsAt(),
                in.endsAt(),
                in.businessDeadlineSeconds(),
                in.paymentTimeoutSeconds(),
                List.copyOf(skus));
    }
}
