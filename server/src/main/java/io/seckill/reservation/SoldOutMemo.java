package io.seckill.reservation;

import io.lettuce.core.RedisFuture;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.state.SaleStatus;
import io.seckill.worker.PollingWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Sold out, from memory (SPEC 1a): once every bucket of a SKU answered that it is empty, this instance answers
 * {@code SOLD_OUT} to the SKU's new requests without asking Redis for a unit - a refusal then costs a map lookup
 * and one EXISTS of the request's own keys however many buckets the SKU has, which is what a sale answers to
 * nearly everyone. Every
 * {@code seckill.admission.sold-out-memo-poll} (200 ms) the stock of every bucket of every remembered SKU is read
 * (one pipelined GET per bucket); a unit that came back - a cancel's release, a compensation, a stock adjustment,
 * a recalibration, a transfer landed - forgets the SKU, so it is sellable again on every instance within one poll
 * (under a second). A bucket whose stock cannot be read, a missing stock key, or a sale no longer open forgets it
 * too: the memo only ever answers what Redis answered a moment ago.
 *
 * <p>A request Redis already knows (its request map or its reservation hash: a retry of an admitted request) is
 * still replayed through the script - one EXISTS on the buyer's home slot tells ({@code ReservationService}), so
 * a buyer whose answer was lost gets their reservation back, not SOLD_OUT. What memory cannot tell: a new request
 * of a buyer who already holds a reservation is answered {@code SOLD_OUT} rather than {@code ALREADY_RESERVED}.
 */
@Component
public class SoldOutMemo extends PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(SoldOutMemo.class);
    private static final long READ_TIMEOUT_MS = 500;

    /** A SKU of a sale: the memo's key. */
    record Key(long activityId, long skuId) {}

    private final Map<Key, Integer> soldOut = new ConcurrentHashMap<>();
    private final Redis redis;
    private final SaleRegistry registry;
    private final boolean enabled;
    private final Counter answered;
    private final Counter forgotten;

    SoldOutMemo(Redis redis, SaleRegistry registry, SeckillProperties props, MeterRegistry meters) {
        super(
                "api",
                "admission.sold_out_memo",
                props.admission().soldOutMemoPoll().isZero()
                        ? Duration.ofSeconds(1)
                        : props.admission().soldOutMemoPoll(),
                props,
                meters);
        this.redis = redis;
        this.registry = registry;
        this.enabled = !props.admission().soldOutMemoPoll().isZero();
        this.answered = Counter.builder("reservation.sold_out_from_memory")
                .description("buyers answered SOLD_OUT from this instance's memory, without a Redis call")
                .register(meters);
        this.forgotten = Counter.builder("reservation.sold_out_memo.forgotten")
                .description("SKUs this instance stopped answering from memory: a unit came back, or it could not tell")
                .register(meters);
        Gauge.builder("reservation.sold_out_memo.skus", soldOut, Map::size)
                .description("SKUs this instance answers SOLD_OUT from memory")
                .register(meters);
    }

    @Override
    protected String threadName() {
        return "sold-out-memo";
    }

    /** Whether the SKU is remembered sold out: its new requests are answered SOLD_OUT without asking for a unit. */
    public boolean remembers(long activityId, long skuId) {
        return !soldOut.isEmpty() && soldOut.containsKey(new Key(activityId, skuId));
    }

    /** Counts a buyer answered SOLD_OUT from memory. */
    void answered() {
        answered.increment();
    }

    /** Every bucket of the SKU has just answered that it is empty: remembered until the next poll says otherwise. */
    void rememberSoldOut(long activityId, long skuId, int buckets) {
        if (enabled && isRunning()) {
            soldOut.put(new Key(activityId, skuId), buckets);
        }
    }

    @Override
    protected int runPass() {
        if (soldOut.isEmpty()) {
            return 0;
        }
        List<Key> keys = new ArrayList<>(soldOut.keySet());
        List<List<RedisFuture<String>>> reads = new ArrayList<>(keys.size());
        for (Key k : keys) {
            List<RedisFuture<String>> stock = new ArrayList<>();
            for (SkuSlot slot : SkuSlot.all(k.activityId(), k.skuId(), soldOut.getOrDefault(k, 1))) {
                stock.add(redis.async().get(slot.stock()));
            }
            reads.add(stock);
        }
        for (int i = 0; i < keys.size(); i++) {
            Key k = keys.get(i);
            String why = stillSoldOut(k, reads.get(i));
            if (why != null) {
                soldOut.remove(k);
                forgotten.increment();
                log.info(
                        "admission.sold_out_memo.forgotten activity_id={} sku_id={} reason={}",
                        k.activityId(),
                        k.skuId(),
                        why);
            }
        }
        return 0;
    }

    /** Null while every bucket still holds no unit and the sale is open; else why the SKU is forgotten. */
    private String stillSoldOut(Key k, List<RedisFuture<String>> stock) {
        Activity a = registry.find(k.activityId()).orElse(null);
        if (a == null || a.status() != SaleStatus.OPEN) {
            return "sale not open";
        }
        for (RedisFuture<String> f : stock) {
            String units;
            try {
                units = f.get(READ_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            } catch (Exception e) {
                return "stock unreadable: " + e.getClass().getSimpleName();
            }
            if (units == null) {
                return "stock key missing";
            }
            if (!units.matches("-?\\d{1,18}")) {
                return "stock unreadable: " + units;
            }
            if (Long.parseLong(units) > 0) {
                return "a unit came back";
            }
        }
        return null;
    }

    @Override
    protected void stopRole() {
        super.stopRole();
        soldOut.clear();
    }
}
