package io.seckill.reservation;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisFuture;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.redis.LuaScript;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Sold out, from memory (SPEC 1a): once every bucket of a SKU answered that it is empty, this instance answers the
 * SKU's new requests {@code SOLD_OUT} without a Redis call - a refusal then costs a map lookup however many buckets
 * the SKU has, which is what a sale answers to nearly everyone.
 *
 * <p>A request that made one of the SKU's reservations - a retry whose answer was lost - is still replayed. When a
 * SKU is remembered, the ids of all its reservations are read (Redis's open ones from the send and deadline indexes
 * first, then every one PostgreSQL holds, so one decided in between is in either); a request whose stable id (under
 * any key version) is among them goes through the script. No reservation can be made after that without a unit
 * being added to a bucket first, and the buckets keep what is added out of reach long enough that this instance
 * hears of it before any buyer can have taken it:
 *
 * <ul>
 *   <li>Every addition to a bucket's stock (a release, a compensation, an adjustment, a recalibration, a warm, a
 *       transfer's landing) gives the bucket's {@code added} mark a value it never had (lua/lib/refill.lua).
 *   <li>Units returned to an empty bucket are held for {@link SeckillProperties.Admission#soldOutHold()} (the poll
 *       plus 300 ms) on the Redis clock: neither reserve.lua nor transfer_out.lua gives them out before. Before this
 *       instance first reads a bucket it raises the bucket's own {@code hold_ms} to its hold (raise_hold.lua), and
 *       the scripts hold for the longer of theirs and the bucket's: an instance with a shorter poll, or the memo
 *       off (during a rolling change of the setting), holds as long as this one trusts its memory. A reading that
 *       finds a bucket's hold below this instance's (lost in a failover) is no confirmation.
 *   <li>A SKU is remembered when every bucket reads empty with nothing in transit, and every bucket's mark and
 *       admission count read the same again after the ids. Every {@code seckill.admission.sold-out-memo-poll}
 *       (200 ms) the marks and counts of every remembered SKU are read again: unchanged, no bucket has had a unit
 *       from the moment the poll started back to when the SKU was remembered (a unit moving between buckets is in
 *       one of them, or recorded in transit, at every instant), so the first unit after that moment is a return to
 *       an empty bucket, held from then on.
 *   <li>This instance answers from memory only while its last such confirmation started less than the hold ago
 *       (on its own monotonic clock). Past that - a poll late or failing - the request goes through the script.
 * </ul>
 *
 * So a reservation no poll has seen was made on a unit that came back after the last confirmation started, more
 * than the hold after it: this instance is no longer answering from memory by then. A changed mark or count, a
 * unit in stock or in transit, a value that cannot be read, or a sale no longer open forgets the SKU, so a returned
 * unit is sellable again on every instance once its hold ends (under a second). What memory cannot tell: a new
 * request of a buyer who already holds a reservation is answered {@code SOLD_OUT} rather than
 * {@code ALREADY_RESERVED}.
 */
@Component
public class SoldOutMemo extends PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(SoldOutMemo.class);
    private static final LuaScript RAISE_HOLD = LuaScript.load("raise_hold");
    private static final long READ_TIMEOUT_MS = 500;
    /** A SKU with more reservations than this is not remembered (the set is held in memory). */
    static final int MAX_RESERVATIONS = 1_000_000;

    /** A SKU of a sale: the memo's key. */
    record Key(long activityId, long skuId) {}

    /**
     * What a bucket said: its stock (null when missing), units in transit out of it, admissions ever, added mark, and
     * the hold of returned units it keeps (the longest any instance asked for).
     */
    private record Bucket(Long stock, long inTransit, long admitted, String added, long holdMs) {

        /** The marks a confirmation compares: what was admitted and what was added. */
        Marks marks() {
            return new Marks(admitted, added);
        }
    }

    /** A bucket's admission count and added mark ("" when it never had one). */
    private record Marks(long admitted, String added) {}

    /**
     * A remembered SKU: its buckets' marks when it was remembered, its reservations' ids, and when the last reading
     * that confirmed it started ({@code confirmedNanos}, this instance's monotonic clock).
     */
    private record Memo(List<Marks> marks, Set<UUID> reservations, long confirmedNanos) {
        Memo confirmed(long nanos) {
            return new Memo(marks, reservations, nanos);
        }
    }

    private final Map<Key, Integer> pending = new ConcurrentHashMap<>();
    private final Map<Key, Memo> soldOut = new ConcurrentHashMap<>();
    private final Redis redis;
    private final SaleRegistry registry;
    private final ReservationRepository reservations;
    private final boolean enabled;
    private final long holdNanos;
    private final Counter answered;
    private final Counter forgotten;
    private final Counter unconfirmed;
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
        this.holdNanos = props.admission().soldOutHold().toNanos();
        this.answered = Counter.builder("reservation.sold_out_from_memory")
                .description("buyers answered SOLD_OUT from this instance's memory, without a Redis call")
                .register(meters);
        this.forgotten = Counter.builder("reservation.sold_out_memo.forgotten")
                .description("SKUs this instance stopped answering from memory: a unit came back, or it could not tell")
                .register(meters);
        this.unconfirmed = Counter.builder("reservation.sold_out_memo.unconfirmed")
                .description("requests of a SKU this instance remembers sold out that went to Redis because its last "
                        + "confirmation started longer than the hold ago (a poll late or failing)")
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
     * Whether this request is answered SOLD_OUT from memory: its SKU is remembered sold out, confirmed less than the
     * hold ago, and none of {@code requestIds} (the request's reservation id under each key version) is one of the
     * SKU's reservations. Counts the answer.
     */
    public boolean answersSoldOut(long activityId, long skuId, Collection<UUID> requestIds) {
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
        if (System.nanoTime() - memo.confirmedNanos() >= holdNanos) {
            unconfirmed.increment();
            return false;
        }
        answered.increment();
        return true;
    }

    /** How long units returned to an empty bucket are held (reserve.lua's and transfer_out.lua's hold argument). */
    long holdMillis() {
        return TimeUnit.NANOSECONDS.toMillis(holdNanos);
    }

    /** Every bucket of the SKU has just answered that it is empty: the next pass remembers it, if it still is. */
    void rememberSoldOut(long activityId, long skuId, int buckets) {
        Key key = new Key(activityId, skuId);
        if (enabled && isRunning() && !soldOut.containsKey(key)) {
            pending.put(key, buckets);
        }
    }

    /**
     * Holds (or lets go) the polls: while held, nothing is remembered, confirmed or forgotten - a poll as late as a
     * test needs it.
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
            if (memo == null) {
                continue;
            }
            long started = System.nanoTime();
            String why = stillSoldOut(k, memo.marks());
            if (why == null) {
                soldOut.replace(k, memo, memo.confirmed(started));
                continue;
            }
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
        for (Key k : new ArrayList<>(pending.keySet())) {
            Integer buckets = pending.remove(k);
            // noted while the SKU was being remembered: it is, with the marks the confirmations compare against
            if (buckets != null && !soldOut.containsKey(k)) {
                remember(k, buckets);
            }
        }
        return 0;
    }

    /**
     * Remembers the SKU when every bucket is empty with nothing in transit: the buckets first, then its reservations'
     * ids (Redis's open ones, then PostgreSQL's), then the marks again - a unit added or an admission in between and
     * it is not remembered.
     */
    private void remember(Key k, int buckets) {
        List<SkuSlot> slots = SkuSlot.all(k.activityId(), k.skuId(), buckets);
        long started = System.nanoTime();
        if (!saleOpen(k)) {
            return;
        }
        String hold = Long.toString(holdMillis());
        for (SkuSlot slot : slots) {
            RAISE_HOLD.run(redis, new String[] {slot.counter()}, hold);
        }
        List<Bucket> first = read(slots);
        if (first == null || whyNotSoldOut(first) != null) {
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
        List<Bucket> again = read(slots);
        List<Marks> marks = first.stream().map(Bucket::marks).toList();
        if (ids.size() > MAX_RESERVATIONS
                || again == null
                || !marks.equals(again.stream().map(Bucket::marks).toList())) {
            return;
        }
        soldOut.put(k, new Memo(marks, Set.copyOf(ids), started));
        log.info(
                "admission.sold_out_memo.remembered activity_id={} sku_id={} reservations={}",
                k.activityId(),
                k.skuId(),
                ids.size());
    }

    /** Null while the sale is open, every bucket is empty with nothing in transit, and no mark moved; else why not. */
    private String stillSoldOut(Key k, List<Marks> remembered) {
        if (!saleOpen(k)) {
            return "sale not open";
        }
        List<Bucket> now = read(SkuSlot.all(k.activityId(), k.skuId(), remembered.size()));
        if (now == null) {
            return "a bucket unreadable";
        }
        String notSoldOut = whyNotSoldOut(now);
        if (notSoldOut != null) {
            return notSoldOut;
        }
        for (int b = 0; b < now.size(); b++) {
            Marks m = now.get(b).marks();
            if (m.admitted() != remembered.get(b).admitted()) {
                return "admissions since it was remembered";
            }
            if (!m.added().equals(remembered.get(b).added())) {
                return "a unit came back";
            }
        }
        return null;
    }

    private boolean saleOpen(Key k) {
        Activity a = registry.find(k.activityId()).orElse(null);
        return a != null && a.status() == SaleStatus.OPEN;
    }

    /** Null when every bucket is empty, with nothing in transit, holding returned units as long as this instance trusts. */
    private String whyNotSoldOut(List<Bucket> buckets) {
        for (Bucket b : buckets) {
            if (b.holdMs() < holdMillis()) {
                return "a bucket's hold of returned units shorter than this instance's";
            }
            if (b.stock() == null) {
                return "stock missing";
            }
            if (b.stock() > 0) {
                return "a unit came back";
            }
            if (b.inTransit() > 0) {
                return "a unit in transit between buckets";
            }
        }
        return null;
    }

    /**
     * Every bucket's admission count (reserve.lua only ever increments it; a slot without one has made none), added
     * mark and hold of returned units, then its stock and the transfers in transit out of it, in one pipeline; null if
     * any is unreadable.
     */
    private List<Bucket> read(List<SkuSlot> slots) {
        List<RedisFuture<String>> stocks = new ArrayList<>(slots.size());
        List<RedisFuture<Long>> transits = new ArrayList<>(slots.size());
        List<RedisFuture<List<KeyValue<String, String>>>> marks = new ArrayList<>(slots.size());
        for (SkuSlot slot : slots) {
            // in this order on the bucket's connection: a unit added after the marks were read changes them, so a
            // unit the stock or the transfers missed shows as a changed mark on the next reading
            marks.add(redis.async().hmget(slot.counter(), "admitted", "added", "hold_ms"));
            stocks.add(redis.async().get(slot.stock()));
            transits.add(redis.async().hlen(slot.transfers()));
        }
        List<Bucket> out = new ArrayList<>(slots.size());
        for (int i = 0; i < slots.size(); i++) {
            String stock = await(stocks.get(i));
            Long inTransit = await(transits.get(i));
            List<KeyValue<String, String>> counts = await(marks.get(i));
            if (inTransit == null || counts == null || counts.size() != 3) {
                return null;
            }
            String admitted = counts.get(0).getValueOrElse("0");
            String holdMs = counts.get(2).getValueOrElse("0");
            if ((stock != null && !stock.matches("-?\\d{1,18}"))
                    || !admitted.matches("\\d{1,18}")
                    || !holdMs.matches("\\d{1,18}")) {
                return null;
            }
            out.add(new Bucket(
                    stock == null ? null : Long.parseLong(stock),
                    inTransit,
                    Long.parseLong(admitted),
                    counts.get(1).getValueOrElse(""),
                    Long.parseLong(holdMs)));
        }
        return out;
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
