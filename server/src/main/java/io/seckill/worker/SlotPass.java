package io.seckill.worker;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.anomaly.StalledWork;
import io.seckill.redis.SkuSlot;
import io.seckill.retry.Backoff;
import io.seckill.state.ObjectKind;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pass over many Redis slots in which each slot is its own unit of failure: an error on one slot is
 * counted, logged at most once per {@link #LOG_EVERY}, reported as stalled work past its bound, and never
 * keeps the pass from the slots after it.
 *
 * <p>A failure is charged to what caused it. A call that got no answer (a timeout, a lost connection, a
 * breaker refusing for a silent server) is the server's: every slot that server serves waits out the
 * backoff, so one hung master costs one timeout per backoff step, not one per slot per pass. Any other
 * error (a reply that is an error, a value that cannot be read) is the slot's alone. The backoff is 1 s
 * doubling to 30 s; the first success on a slot clears the slot and its server.
 *
 * <p>Metrics, tagged {@code worker}: {@code work_slot_failed_total{scope=slot|node}} and
 * {@code work_slot_skipped_total} (slots left for a later pass while they or their server back off).
 */
public final class SlotPass {

    /** Where a unit that keeps failing is reported: {@code StalledWork.failed} in the application. */
    @FunctionalInterface
    public interface Stalls {
        void failed(ObjectKind objectType, String objectId, SkuSlot slot, int attempts, String error);
    }

    /** How often one failing slot or server is logged while it keeps failing. */
    static final Duration LOG_EVERY = Duration.ofSeconds(30);

    private static final Logger log = LoggerFactory.getLogger(SlotPass.class);
    private static final Backoff BACKOFF = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));
    /** Failing units tracked at most: a sale's slots are few; this bounds a pathological case. */
    private static final int MAX_TRACKED = 10_000;

    private final String worker;
    private final Function<String, String> nodeOf;
    private final Clock clock;
    private final Stalls stalls;
    private final Counter slotFailed;
    private final Counter nodeFailed;
    private final Counter skipped;
    private final ConcurrentHashMap<String, Failing> failing = new ConcurrentHashMap<>();

    /** One unit's run of failures: how many in a row, when it may be tried again, when it was last logged. */
    private record Failing(int attempts, long retryAtMs, long loggedAtMs, int unlogged) {}

    /**
     * {@code nodeOf}: the address of the server that serves a key ({@code Redis::nodeOf}); {@code stalls}: where a
     * unit that keeps failing is reported.
     */
    public SlotPass(String worker, Function<String, String> nodeOf, Clock clock, MeterRegistry meters, Stalls stalls) {
        this.worker = worker;
        this.nodeOf = nodeOf;
        this.clock = clock;
        this.stalls = stalls;
        this.slotFailed = failedCounter(meters, worker, "slot");
        this.nodeFailed = failedCounter(meters, worker, "node");
        this.skipped = Counter.builder("work.slot.skipped")
                .description("slots a pass left for later while they or the server that serves them back off")
                .tag("worker", worker)
                .register(meters);
    }

    /** Slots or servers that keep failing reported to {@code stalled} as {@code kind} work of {@code worker}, the slot as evidence. */
    public static Stalls reportingTo(StalledWork stalled, String worker, AnomalyKind kind) {
        return (objectType, objectId, slot, attempts, error) -> stalled.failed(
                worker,
                kind,
                objectType,
                objectId,
                slot.activityId(),
                slot.skuId(),
                attempts,
                error,
                Map.of("slot", slot.tag()));
    }

    /**
     * A pass whose units each span several servers (a SKU over its buckets, say), named by a slot of theirs: a
     * failure cannot be told apart by server, so every failure - an unanswered call too - is charged to the unit
     * alone, which backs off on its own while the others go on.
     */
    public static SlotPass perUnit(String worker, Clock clock, MeterRegistry meters, Stalls stalls) {
        return new SlotPass(worker, key -> "unit " + key, clock, meters, stalls);
    }

    private static Counter failedCounter(MeterRegistry meters, String worker, String scope) {
        return Counter.builder("work.slot.failed")
                .description("a slot's work failed in a pass; scope=node when the server serving it did not answer")
                .tags("worker", worker, "scope", scope)
                .register(meters);
    }

    /** Runs {@code work} on each slot not backing off; returns the sum of what the slots did. */
    public int run(List<SkuSlot> slots, ToIntFunction<SkuSlot> work) {
        int done = 0;
        for (SkuSlot slot : slots) {
            String node = node(slot);
            String nodeKey = "node " + node;
            String slotKey = "slot " + slot.tag();
            long now = clock.millis();
            if (waiting(nodeKey, now) || waiting(slotKey, now)) {
                skipped.increment();
                continue;
            }
            try {
                done += work.applyAsInt(slot);
                if (!failing.isEmpty()) {
                    recovered(slotKey);
                    recovered(nodeKey);
                }
            } catch (RuntimeException e) {
                if (notAnswered(e)) {
                    nodeFailed.increment();
                    failed(nodeKey, ObjectKind.REDIS_NODE, node, slot, e, now);
                } else {
                    slotFailed.increment();
                    failed(slotKey, ObjectKind.SLOT, slot.tag(), slot, e, now);
                }
            }
        }
        return done;
    }

    private String node(SkuSlot slot) {
        try {
            return nodeOf.apply(slot.stock());
        } catch (RuntimeException e) {
            // the client's view of the cluster cannot say; the slot then fails and backs off on its own
            return "unknown";
        }
    }

    private boolean waiting(String key, long now) {
        Failing f = failing.get(key);
        return f != null && now < f.retryAtMs();
    }

    private void failed(
            String key, ObjectKind objectType, String objectId, SkuSlot slot, RuntimeException e, long now) {
        if (failing.size() >= MAX_TRACKED && !failing.containsKey(key)) {
            failing.clear();
        }
        Failing f = failing.compute(key, (k, was) -> {
            int attempts = was == null ? 1 : was.attempts() + 1;
            long retryAt = now + BACKOFF.after(attempts).toMillis();
            boolean log = was == null || now - was.loggedAtMs() >= LOG_EVERY.toMillis();
            return log
                    ? new Failing(attempts, retryAt, now, -1)
                    : new Failing(attempts, retryAt, was.loggedAtMs(), was.unlogged() + 1);
        });
        String error = e.getClass().getSimpleName() + ": " + e.getMessage();
        if (f.unlogged() < 0) {
            log.warn(
                    "work.slot_failed worker={} unit=\"{}\" slot={} activity_id={} sku_id={} attempts={} retry_in_ms={} "
                            + "error_class={}: {} (the pass goes on with the other slots; logged once per {} s)",
                    worker,
                    key,
                    slot.tag(),
                    slot.activityId(),
                    slot.skuId(),
                    f.attempts(),
                    f.retryAtMs() - now,
                    e.getClass().getName(),
                    e.getMessage(),
                    LOG_EVERY.toSeconds());
        }
        try {
            stalls.failed(objectType, objectId, slot, f.attempts(), error);
        } catch (RuntimeException report) {
            // the report goes to PostgreSQL, which may be away too: the failure itself is counted and logged above
            log.warn(
                    "work.slot_stall_report_failed worker={} object_id={} error_class={}: {}",
                    worker,
                    objectId,
                    report.getClass().getName(),
                    report.getMessage());
        }
    }

    private void recovered(String key) {
        Failing f = failing.remove(key);
        if (f != null) {
            log.info("work.slot_recovered worker={} {} attempts={}", worker, key, f.attempts());
        }
    }

    /** A call the server never answered, as {@code RedisBreaker} judges it: a reply that is an error is an answer. */
    static boolean notAnswered(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RedisCommandExecutionException) {
                return false;
            }
            if (t instanceof RedisException) {
                return true;
            }
        }
        return false;
    }
}
