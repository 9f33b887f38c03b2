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
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Sold out, from memory (SPEC 1a): once every bucket of a SKU answered that it is empty, this instance answers the
 * SKU's new requests {@code SOLD_OUT} without running the reserve script - a refusal then costs a map lookup and one
 * key lookup however many buckets the SKU has, which is what a sale answers to nearly everyone.
 *
 * <p>A request that made one of the SKU's reservations - a retry whose answer was lost - is still replayed: when
 * a SKU is remembered, the ids of all its reservations are read (Redis's open ones from the send and deadline
 * indexes first, then every one PostgreSQL holds, so one decided in between is in either) and a request whose
 * stable id (under any key version) is among them goes through the script. A reservation made after that - on
 * another instance, on a unit that came back, before this instance's next poll forgets the SKU - is not in the set:
 * so a request the set does not know is answered from memory only once one lookup in its home bucket (EXISTS on
 * its reservation hash, no script) says it made none. A refusal from memory costs that lookup, whatever the
 * bucket count; a script per bucket is what it saves.
 *
 * <p>Every {@code seckill.admission.sold-out-memo-poll} (200 ms) the stock and the count of admissions ever made
 * (the counter hash's {@code admitted}, which reserve.lua only increments) of every bucket of every remembered SKU are read in one pipeline; a unit that
 * came back (a cancel's release, a compensation, a stock adjustment, a recalibration, a landed transfer), an
 * admission since the SKU was remembered, a value that cannot be read or is missing, or a sale no longer open
 * forgets it, so a returned unit is sellable again on every instance within one poll (under a second). What memory
 * cannot tell: a new request of a buyer who already holds a reservation is answered {@code SOLD_OUT} rather than
 * {@code ALREADY_RESERVED}.
 */
@Component
public class SoldOutMemo extends PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(SoldOutMemo.class);
    private static final long READ_TIMEOUT_MS = 500;
    /** A SKU with more reservations than this is not remembered (the set is held in memory). */
    static final int MAX_RESERVATIONS = 1_000_000;

    /** A SKU of a sale: the memo's key. */
    record Key(long activityId, long skuId) {}

    /** A remembered SKU: its buckets, what they had admitted when it was remembered, and its reservations' ids. */
    private record Memo(int buckets, long admitted, Set<UUID> reservations) {}

    private final Map<Key, Integer> pending = new ConcurrentHashMap<>();
    private final Map<Key, Memo> soldOut = new ConcurrentHashMap<>();
    private final Redis redis;
    private final SaleRegistry registry;
    private final ReservationRepository reservations;
    private final boolean enabled;
    private final Counter answered;
    private final Counter forgotten;
    private final Counter madeElsewhere;
    private volatile boolean held;

    SoldOutMemo(
            Redis redis,
            SaleRegistry registry,
            ReservationRepository reservations,
            SeckillProperties props,
            MeterRegistry meters) {
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
        this.reservations = reservations;
        this.enabled = !props.admission().soldOutMemoPoll().isZero();
        this.answered = Counter.builder("reservation.sold_out_from_memory")
                .description("buyers answered SOLD_OUT from this instance's memory, without a Redis call")
                .register(meters);
        this.forgotten = Counter.builder("reservation.sold_out_memo.forgotten")
                .description("SKUs this instance stopped answering from memory: a unit came back, or it could not tell")
                .register(meters);
        this.madeElsewhere = Counter.builder("reservation.sold_out_memo.made_since")
                .description("requests of a SKU this instance remembered sold out that had made a reservation since "
                        + "(on another instance, before this one's next poll): asked of Redis, and replayed")
                .register(meters);
        Gauge.builder("reservation.sold_out_memo.skus", soldOut, Map::size)
                .description("SKUs this instance answers SOLD_OUT from memory")
                .register(meters);
    }

    @Override
    protected String threadName() {
        return "sold-out-memo";
    }

    /**
     * Whether this request is answered SOLD_OUT from memory: its SKU is remembered sold out, none of
     * {@code requestIds} (the request's reservation id under each key version) is one of the SKU's reservations the
     * memo knows, and {@code madeSince} says the request made none since the SKU was remembered either (another
     * instance may have admitted it on a returned unit before this one's next poll; the buyer's retry must still get
     * that reservation back). {@code madeSince} is asked only for a remembered SKU. Counts the answer.
     */
    public boolean answersSoldOut(long activityId, long skuId, Collection<UUID> requestIds, BooleanSupplier madeSince) {
        if (soldOut.isEmpty()) {
            return false;
        }
        Memo memo = soldOut.get(new Key(activityId, skuId));
        if (memo == null) {
            return false;
        }
        for (UUID id : requestIds) {
            if (memo.reservations().contains(id)) {
                return false;
            }
        }
        if (madeSince.getAsBoolean()) {
            madeElsewhere.increment();
            return false;
        }
        answered.increment();
        return true;
    }

    /** Every bucket of the SKU has just answered that it is empty: the next pass remembers it, if it still is. */
    void rememberSoldOut(long activityId, long skuId, int buckets) {
        Key key = new Key(activityId, skuId);
        if (enabled && isRunning() && !soldOut.containsKey(key)) {
            pending.put(key, buckets);
        }
    }

    /**
     * Holds (or lets go) the polls: while held, nothing is remembered or forgotten - the window between a unit coming
     * back and this instance's next poll, made as long as a test needs.
     */
    void holdPolls(boolean hold) {
        held = hold;
    }

    @Override
    protected int runPass() {
        if (held) {
            return 0;
        }
        for (Key k : new ArrayList<>(soldOut.keySet())) {
            Memo memo = soldOut.get(k);
            String why = memo == null ? null : stillSoldOut(k, memo.buckets(), memo.admitted());
            if (why != null) {
                soldOut.remove(k);
                // a SOLD_OUT answer noted before the change that made the SKU forgotten does not remember it again
                pending.remove(k);
                forgotten.increment();
                log.info(
                        "admission.sold_out_memo.forgotten activity_id={} sku_id={} reason={}",
                        k.activityId(),
                        k.skuId(),
                        why);
            }
        }
        for (Key k : new ArrayList<>(pending.keySet())) {
            Integer buckets = pending.remove(k);
            // noted while the SKU was being remembered: it is, with the count the forget check compares against
            if (buckets != null && !soldOut.containsKey(k)) {
                remember(k, buckets);
            }
        }
        return 0;
    }

    /**
     * Remembers the SKU when every bucket is still empty: its admitted count first, then its reservations' ids
     * (Redis's open ones, then PostgreSQL's), and the count again - an admission in between and it is not remembered.
     */
    private void remember(Key k, int buckets) {
        List<SkuSlot> slots = SkuSlot.all(k.activityId(), k.skuId(), buckets);
        Long admitted = admitted(slots);
        if (admitted == null || stillSoldOut(k, buckets, admitted) != null) {
            return;
        }
        Set<UUID> ids = new HashSet<>();
        for (SkuSlot slot : slots) {
            for (String index : List.of(slot.sendDue(), slot.sendAside(), slot.deadlines())) {
                for (String member : redis.sync().zrange(index, 0, -1)) {
                    ids.add(UUID.fromString(member));
                }
            }
        }
        ids.addAll(reservations.idsOfSku(k.activityId(), k.skuId()));
        if (ids.size() > MAX_RESERVATIONS || !admitted.equals(admitted(slots))) {
            return;
        }
        soldOut.put(k, new Memo(buckets, admitted, Set.copyOf(ids)));
        log.info(
                "admission.sold_out_memo.remembered activity_id={} sku_id={} reservations={}",
                k.activityId(),
                k.skuId(),
                ids.size());
    }

    /**
     * Every admission the buckets ever made (their {@code admitted} field, which reserve.lua only ever increments;
     * a slot without one has made none); null if unreadable. Not {@code committed + open_reserved}: a cancel's
     * release and the admission that takes its unit leave that sum, and the stock, where they were.
     */
    private Long admitted(List<SkuSlot> slots) {
        List<RedisFuture<String>> reads = new ArrayList<>(slots.size());
        for (SkuSlot slot : slots) {
            reads.add(redis.async().hget(slot.counter(), "admitted"));
        }
        long total = 0;
        for (RedisFuture<String> f : reads) {
            String text;
            try {
                text = f.get(READ_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            } catch (Exception e) {
                return null;
            }
            if (text == null) {
                continue;
            }
            if (!text.matches("\\d{1,18}")) {
                return null;
            }
            total += Long.parseLong(text);
        }
        return total;
    }

    /** Null while every bucket holds no unit, nothing was admitted since, and the sale is open; else why not. */
    private String stillSoldOut(Key k, int buckets, long admittedWhenRemembered) {
        Activity a = registry.find(k.activityId()).orElse(null);
        if (a == null || a.status() != SaleStatus.OPEN) {
            return "sale not open";
        }
        List<SkuSlot> slots = SkuSlot.all(k.activityId(), k.skuId(), buckets);
        List<RedisFuture<String>> stock = new ArrayList<>(slots.size());
        for (SkuSlot slot : slots) {
            stock.add(redis.async().get(slot.stock()));
        }
        Long admitted = admitted(slots);
        for (RedisFuture<String> f : stock) {
            String units = await(f);
            if (units == null || !units.matches("-?\\d{1,18}")) {
                return "stock missing or unreadable";
            }
            if (Long.parseLong(units) > 0) {
                return "a unit came back";
            }
        }
        if (admitted == null) {
            return "admitted count missing or unreadable";
        }
        return admitted == admittedWhenRemembered ? null : "admissions since it was remembered";
    }

    /** The reply, or null when Redis did not give one in time (the caller forgets rather than guesses). */
    private static <T> T await(RedisFuture<T> f) {
        try {
            return f.get(READ_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (Exception e) {
            return null;
        }
    }

    @Override
    protected void stopRole() {
        super.stopRole();
        soldOut.clear();
        pending.clear();
    }
}
