package io.seckill.activity;

import io.seckill.redis.SkuSlot;
import io.seckill.state.SaleStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * The immutable shape of each sale (SKUs, buckets, price, deadlines), cached per instance so the
 * hot path does not query PostgreSQL. Open/closed is not trusted from the cache: admission judges it
 * inside the Lua, {@link #live()} carries the status read within the last second, and a decision
 * that depends on the status reads it fresh with {@link #load(long)}. Unknown activity ids are
 * remembered briefly so a flood of them cannot reach the database.
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
        loaded.ifPresentOrElse(
                a -> {
                    known.put(activityId, a);
                    unknownUntil.remove(activityId);
                },
                () -> unknownUntil.put(activityId, System.nanoTime() + NEGATIVE_TTL_NANOS));
        return loaded;
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

    void forget(long activityId) {
        known.remove(activityId);
        unknownUntil.remove(activityId);
    }
}
