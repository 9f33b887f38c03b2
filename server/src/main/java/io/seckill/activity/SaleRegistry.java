package io.seckill.activity;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.ratelimit.PerSecondLimit;
import io.seckill.redis.SkuSlot;
import io.seckill.state.SaleStatus;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The immutable shape of each sale (SKUs, buckets, price, deadlines), cached per instance so the
 * hot path does not query PostgreSQL. Open/closed is not trusted from the cache: admission judges it
 * inside the Lua, {@link #live()} carries the status read within the last second, and a decision
 * that depends on the status reads it fresh with {@link #load(long)}.
 *
 * <p>An id a buyer names costs PostgreSQL nothing unless it is a sale: the ids of every sale are re-read at most
 * once a second for all callers together ({@link #catalogue}), and an id not among them is looked up only within
 * a shared budget of {@code seckill.api.unknown-sale-lookups-per-second} (a sale created on another instance in
 * the last second is found that way). Unknown ids are remembered for a second in a bounded map. A flood of made-up
 * ids therefore leaves the heap and the query count flat ({@code sale_lookups_total{result}} counts them).
 */
@Component
public class SaleRegistry {

    private static final long NEGATIVE_TTL_NANOS = 1_000_000_000L;
    /** Unknown ids remembered at most; past it the memory starts again (each costs at most a budgeted lookup). */
    static final int MAX_UNKNOWN = 10_000;

    private final ActivityRepository activities;
    private final InventoryRepository inventory;
    private final ConcurrentHashMap<Long, Activity> known = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Long> unknownUntil = new ConcurrentHashMap<>();
    private final PerSecondLimit unknownLookups;
    private final Counter overBudget;
    private final Counter loads;
    private final ReentrantLock catalogueRefresh = new ReentrantLock();
    private volatile Set<Long> catalogue;
    private volatile long catalogueUntil;

    SaleRegistry(
            ActivityRepository activities,
            InventoryRepository inventory,
            @Value("${seckill.api.unknown-sale-lookups-per-second:20}") int unknownLookupsPerSecond,
            MeterRegistry meters) {
        this.activities = activities;
        this.inventory = inventory;
        this.unknownLookups =
                new PerSecondLimit("seckill.api.unknown-sale-lookups-per-second", unknownLookupsPerSecond);
        this.overBudget = lookups(meters, "over_budget");
        this.loads = lookups(meters, "loaded");
    }

    private static Counter lookups(MeterRegistry meters, String result) {
        return Counter.builder("sale.lookups")
                .description("sales looked up by id past the cache: loaded from PostgreSQL, or refused without a query "
                        + "(over_budget: an id the catalogue does not hold, past the shared budget of such lookups)")
                .tag("result", result)
                .register(meters);
    }

    public Optional<Activity> find(long activityId) {
        Activity cached = known.get(activityId);
        if (cached != null) {
            return Optional.of(cached);
        }
        Long until = unknownUntil.get(activityId);
        if (until != null && System.nanoTime() < until) {
            return Optional.empty();
        }
        if (!catalogue().contains(activityId)) {
            // not a sale a second ago: looked up (a sale just created elsewhere) only within the shared budget
            if (!unknownLookups.tryAcquire()) {
                overBudget.increment();
                remember(activityId);
                return Optional.empty();
            }
        }
        loads.increment();
        Optional<Activity> loaded = load(activityId);
        loaded.ifPresentOrElse(
                a -> {
                    known.put(activityId, a);
                    unknownUntil.remove(activityId);
                },
                () -> remember(activityId));
        return loaded;
    }

    private void remember(long unknownId) {
        if (unknownUntil.size() >= MAX_UNKNOWN) {
            unknownUntil.clear();
        }
        unknownUntil.put(unknownId, System.nanoTime() + NEGATIVE_TTL_NANOS);
    }

    /**
     * The ids of every sale, re-read at most once a second by one caller while the others use the set in hand (the
     * very first callers wait for it).
     */
    private Set<Long> catalogue() {
        Set<Long> ids = catalogue;
        if (ids != null && System.nanoTime() - catalogueUntil < 0) {
            return ids;
        }
        if (ids != null && !catalogueRefresh.tryLock()) {
            return ids;
        }
        if (ids == null) {
            catalogueRefresh.lock();
        }
        try {
            if (catalogue == null || System.nanoTime() - catalogueUntil >= 0) {
                catalogue = Set.copyOf(activities.ids());
                catalogueUntil = System.nanoTime() + NEGATIVE_TTL_NANOS;
            }
            return catalogue;
        } finally {
            catalogueRefresh.unlock();
        }
    }

    /** Fresh from PostgreSQL, status included. */
    public Optional<Activity> load(long activityId) {
        List<Activity.Sku> skus = inventory.forActivity(activityId).stream()
                .map(s -> new Activity.Sku(s.skuId(), s.price(), s.buckets(), s.initial()))
                .toList();
        return activities.find(activityId, skus);
    }

    private volatile Map<Long, SaleStatus> live = Map.of();
    private volatile long liveUntil;

    /**
     * Every sale that is open, or closed and not yet past its last deadline and payment timeout by a week, with
     * its status as PostgreSQL has it now (ids and statuses
     * re-read at most once a second), for the background workers that poll several times a second.
     * The cached shapes pick up the fresh status too.
     */
    public List<Activity> live() {
        long now = System.nanoTime();
        if (now - liveUntil >= 0) {
            live = activities.live();
            liveUntil = now + 1_000_000_000L;
        }
        List<Activity> out = new ArrayList<>(live.size());
        live.forEach((id, status) -> find(id).ifPresent(a -> {
            Activity fresh = a.withStatus(status);
            if (fresh != a) {
                known.put(id, fresh);
            }
            out.add(fresh);
        }));
        return out;
    }

    /** Every Redis slot of every live sale: what the background workers walk on each pass. */
    public List<SkuSlot> liveSlots() {
        return live().stream().flatMap(a -> a.slots().stream()).toList();
    }

    /** How many unknown ids are remembered now (at most {@link #MAX_UNKNOWN}). */
    int unknownRemembered() {
        return unknownUntil.size();
    }

    /** The sale's shape is to be read again; a sale just created here is in the catalogue from now on. */
    void forget(long activityId) {
        known.remove(activityId);
        unknownUntil.remove(activityId);
        Set<Long> ids = catalogue;
        if (ids != null && !ids.contains(activityId)) {
            Set<Long> with = new HashSet<>(ids);
            with.add(activityId);
            catalogue = Set.copyOf(with);
        }
    }
}
