package io.seckill.activity;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;

/**
 * The immutable shape of each sale (SKUs, buckets, price, deadlines), cached per instance so the
 * hot path does not query PostgreSQL. Open/closed is NOT cached: admission judges it inside the
 * Lua. Unknown activity ids are remembered briefly so a flood of them cannot reach the database.
 */
@Component
public class SaleRegistry {

    private static final long NEGATIVE_TTL_NANOS = 1_000_000_000L;

    private final ActivityRepository activities;
    private final InventoryRepository inventory;
    private final ConcurrentHashMap<Long, Activity> known = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Long> unknownUntil = new ConcurrentHashMap<>();

    SaleRegistry(ActivityRepository activities, InventoryRepository inventory) {
        this.activities = activities;
        this.inventory = inventory;
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
        Optional<Activity> loaded = load(activityId);
        loaded.ifPresentOrElse(a -> {
            known.put(activityId, a);
            unknownUntil.remove(activityId);
        }, () -> unknownUntil.put(activityId, System.nanoTime() + NEGATIVE_TTL_NANOS));
        return loaded;
    }

    /** Fresh from PostgreSQL, status included. */
    public Optional<Activity> load(long activityId) {
        List<Activity.Sku> skus = inventory.forActivity(activityId).stream()
                .map(s -> new Activity.Sku(s.skuId(), s.price(), s.buckets(), s.initial())).toList();
        return activities.find(activityId, skus);
    }

    private volatile List<Long> liveIds = List.of();
    private volatile long liveIdsUntil;

    /**
     * Every sale that is open or has been (from PostgreSQL, re-read at most once a second), for the
     * background workers that poll several times a second.
     */
    public List<Activity> live() {
        long now = System.nanoTime();
        if (now - liveIdsUntil >= 0) {
            liveIds = activities.liveIds();
            liveIdsUntil = now + 1_000_000_000L;
        }
        return liveIds.stream().map(this::find).flatMap(Optional::stream).toList();
    }

    void forget(long activityId) {
        known.remove(activityId);
        unknownUntil.remove(activityId);
    }
}
