package io.seckill.reconcile;

import io.lettuce.core.RedisFuture;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.activity.SaleRegistry;
import io.seckill.activity.SkuInventory;
import io.seckill.activity.Stock;
import io.seckill.activity.StockAdjustments;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.compensation.CompensationTasks;
import io.seckill.config.SeckillProperties;
import io.seckill.hold.ManualHolds;
import io.seckill.mq.BrokerBacklog;
import io.seckill.outbox.Outbox;
import io.seckill.projection.OrderProjection;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.redis.SlotCounters;
import io.seckill.reservation.BucketTransfers;
import io.seckill.reservation.Judged;
import io.seckill.reservation.Reservations;
import io.seckill.state.HashStatus;
import io.seckill.state.ObjectKind;
import io.seckill.state.ReservationStatus;
import io.seckill.state.SaleStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.message.MessageQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Activity-level recalibration of a SKU's Redis counters from PostgreSQL (DESIGN.md §9.6, fault row 13):
 * after Redis lost the SKU's keys (a restart without persistence), and on a live SKU whose counters no
 * longer add up with PostgreSQL's (a failover that lost writes the old master had acknowledged). Never a
 * blind increment: admission for the SKU is paused, the counters are set from one PostgreSQL snapshot
 * by a script that refuses while anything could still move them, and the sale resumes. The algorithm
 * is in docs/RECONCILIATION.md.
 */
@Component
public class RedisRecalibration {

    private static final Logger log = LoggerFactory.getLogger(RedisRecalibration.class);
    private static final LuaScript RECALIBRATE = LuaScript.load("recalibrate");
    private static final LuaScript PAUSE_SLOT = LuaScript.load("pause_slot");
    static final String RULE = "REDIS_RECALIBRATION";

    private final Stock stock;
    private final RepairRepository repairLog;
    private final Reservations reservations;
    private final Outbox outboxRepo;
    private final OrderProjection projection;
    private final Anomalies anomalies;
    private final ManualHolds holds;
    private final Repairs repairs;
    private final Redis redis;
    private final SeckillProperties props;
    private final MeterRegistry meters;
    private final SaleRegistry registry;
    private final BrokerBacklog backlog;
    private final BucketTransfers transfers;
    private final StockAdjustments adjustments;
    private final TransactionTemplate snapshotTx;

    RedisRecalibration(
            Stock stock,
            RepairRepository repairLog,
            Reservations reservations,
            Outbox outboxRepo,
            OrderProjection projection,
            Anomalies anomalies,
            ManualHolds holds,
            Repairs repairs,
            Redis redis,
            SeckillProperties props,
            MeterRegistry meters,
            SaleRegistry registry,
            BrokerBacklog backlog,
            BucketTransfers transfers,
            StockAdjustments adjustments,
            PlatformTransactionManager txManager) {
        this.stock = stock;
        this.repairLog = repairLog;
        this.reservations = reservations;
        this.outboxRepo = outboxRepo;
        this.projection = projection;
        this.anomalies = anomalies;
        this.holds = holds;
        this.repairs = repairs;
        this.redis = redis;
        this.props = props;
        this.meters = meters;
        this.registry = registry;
        this.backlog = backlog;
        this.transfers = transfers;
        this.adjustments = adjustments;
        this.snapshotTx = new TransactionTemplate(txManager);
        snapshotTx.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
        snapshotTx.setReadOnly(true);
        meters.counter("reconcile.redis_recalibration");
    }

    /**
     * One step of the recovery of {@code sku} after Redis lost its keys; returns HELD, PAUSED_DRAINING
     * (call again later) or RECALIBRATED. Safe to run from several reconcilers: the recalibration itself
     * is one repair task.
     */
    String recover(Activity a, Activity.Sku sku, Map<String, Integer> found) {
        long activityId = a.activityId();
        String object = activityId + ":" + sku.skuId();
        SkuInventory pg = pg(activityId, sku.skuId());
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("pg", pg.toString());
        evidence.put("redis_slots_with_counters", warmedSlots(activityId, sku));
        if (anomalies.record(AnomalyKind.REDIS_KEYS_LOST, ObjectKind.SKU, object, activityId, sku.skuId(), evidence)) {
            meters.counter("reconcile.anomaly", "type", AnomalyKind.REDIS_KEYS_LOST.name())
                    .increment();
            log.error(
                    "reconcile.redis_keys_lost activity_id={} sku_id={} evidence={}",
                    activityId,
                    sku.skuId(),
                    evidence);
        }
        found.merge("REDIS_KEYS_LOST", 1, Integer::sum);
        if (!holds.holds(List.of(object)).isEmpty()) {
            return "HELD";
        }
        pause(a, sku);
        String drain = drained(a, sku);
        if (drain != null) {
            log.warn(
                    "reconcile.recalibration_waiting activity_id={} sku_id={} reason={}",
                    activityId,
                    sku.skuId(),
                    drain);
            return "PAUSED_DRAINING";
        }
        Attempt attempt = run(a, sku, true, "Redis lost the keys of a live SKU", evidence);
        if (!attempt.done()) {
            log.warn(
                    "reconcile.recalibration_waiting activity_id={} sku_id={} reason={}",
                    activityId,
                    sku.skuId(),
                    attempt.detail());
            return "PAUSED_DRAINING";
        }
        restoreLost(a, sku, attempt.counted());
        resume(a, sku, a.slots(sku));
        return "RECALIBRATED";
    }

    /**
     * Recalibrates a live SKU whose Redis counters disagree with PostgreSQL's (or whose reservations
     * Redis had lost): admission for the SKU pauses - buyers are asked to retry in a moment - until no
     * reservation is open in it but those under manual review (a person moves them, not the pipeline:
     * they keep their units open through the recalibration), at most
     * {@code seckill.reconcile.recalibration-drain}; then one attempt,
     * then the SKU admits again whatever came of it. Returns HELD, DRAIN_TIMEOUT, REFUSED: why,
     * UNCHANGED (Redis already agreed) or RECALIBRATED.
     */
    String recalibrateLive(Activity a, Activity.Sku sku, String reason, Map<String, ?> evidence) {
        long activityId = a.activityId();
        if (!holds.holds(List.of(activityId + ":" + sku.skuId())).isEmpty()) {
            return "HELD";
        }
        // what would refuse the attempt anyway is found before buyers are paused for it
        String blocker = blocker(activityId, sku, snapshot(activityId, sku.skuId()), new int[sku.buckets()]);
        if (blocker != null) {
            return deferred("refused", activityId, sku, blocker);
        }
        // a reservation a person holds stays open through the recalibration: nothing else will close it
        long inReview = openInReview(a, sku);
        List<SkuSlot> paused = pause(a, sku);
        Attempt attempt;
        try {
            OrderMessagesInFlight inFlight = new OrderMessagesInFlight();
            long deadline =
                    System.nanoTime() + props.reconcile().recalibrationDrain().toNanos();
            String waiting;
            while ((waiting = unsettled(a, sku, inReview, inFlight)) != null) {
                if (System.nanoTime() > deadline) {
                    deferred("drain_timeout", activityId, sku, waiting);
                    return "DRAIN_TIMEOUT";
                }
                sleep();
            }
            attempt = run(a, sku, false, reason, evidence);
        } finally {
            resume(a, sku, paused);
        }
        if (!attempt.done()) {
            return deferred("refused", activityId, sku, attempt.detail());
        }
        // lost hashes come back once buyers are admitted again: no counter moves with them
        restoreLost(a, sku, attempt.counted());
        return attempt.changed() ? "RECALIBRATED" : "UNCHANGED";
    }

    /**
     * A slot left PAUSED with its counters in place - a recalibration whose instance died between its
     * pause and its resume - admits again. Returns how many slots were resumed.
     */
    int resumeStale(Activity a, Activity.Sku sku) {
        List<SkuSlot> paused = new ArrayList<>();
        for (SkuSlot slot : a.slots(sku)) {
            if ("PAUSED".equals(redis.sync().hget(slot.meta(), "status"))) {
                paused.add(slot);
            }
        }
        if (paused.isEmpty()) {
            return 0;
        }
        int resumed = resume(a, sku, paused);
        if (resumed > 0) {
            meters.counter("reconcile.recalibration.stale_pause").increment(resumed);
            log.warn(
                    "reconcile.stale_pause_resumed activity_id={} sku_id={} slots={}",
                    a.activityId(),
                    sku.skuId(),
                    resumed);
        }
        return resumed;
    }

    /** What one attempt came to: done (changed or not), or refused with the reason; the reservations it counted. */
    record Attempt(boolean done, boolean changed, String detail, List<Judged> counted) {}

    /**
     * The apply step as one repair task (several reconcilers share it), with its audit row; {@code afterLoss}
     * when Redis lost the keys of some slot of the SKU (see {@link #apply}).
     */
    private Attempt run(Activity a, Activity.Sku sku, boolean afterLoss, String reason, Map<String, ?> evidence) {
        String object = a.activityId() + ":" + sku.skuId();
        // the generation makes a later recalibration of the same SKU a new repair, while two reconcilers share one
        long generation = repairLog.done(RULE, object);
        Attempt[] out = {refused("recalibrated by another reconciler")};
        Repairs.Run r = repairs.run(
                RULE, "SKU", object, generation, "RECALIBRATED", Reconciler.OPERATOR, reason, evidence, () -> {
                    try {
                        out[0] = apply(a, sku, afterLoss, reason);
                    } catch (RuntimeException e) {
                        out[0] = refused(e.getClass().getSimpleName() + ": " + e.getMessage());
                        throw e;
                    }
                    if (!out[0].done()) {
                        throw new IllegalStateException(out[0].detail());
                    }
                    return out[0].changed() ? out[0].detail() : Repairs.ALREADY + ": " + out[0].detail();
                });
        return r == Repairs.Run.DONE ? out[0] : refused(out[0].detail());
    }

    /**
     * Step 3: Redis counters read first, then PostgreSQL in one snapshot, then the hashes of the orders
     * PostgreSQL cancelled, then each slot set under the script's guard (not admitting, nothing open,
     * counters as read). Any counter that moved after the first read refuses the write: the caller
     * tries again later from fresh reads, and since every target is absolute a partial attempt is
     * simply completed by the next one.
     *
     * <p>After a loss ({@code afterLoss}) a slot whose counters are gone (no stock key or no
     * {@code initial}) has no open count to wait for: a script that ran on it since (a reservation hash
     * that outlived the loss, moved by its order's projection) re-created its counter hash with moves
     * against nothing, such as {@code open_reserved = -1}. The recovery waited for the pipeline
     * instead ({@link #drained}), so its open count is set to 0 like the rest. A hash of such a slot still
     * {@code RESERVED} while PostgreSQL has decided the reservation is removed before the write and comes
     * back with PostgreSQL's state afterwards ({@link #restoreLost}): the new counters count it already,
     * and a late projection or compensation must not move them for it a second time. While such a
     * reservation is under a hold, the attempt is refused.
     */
    private Attempt apply(Activity a, Activity.Sku sku, boolean afterLoss, String reason) {
        long activityId = a.activityId();
        List<SkuSlot> slots = a.slots(sku);
        List<SlotCounters> before = new ArrayList<>(slots.size());
        boolean[] lost = new boolean[sku.buckets()];
        for (SkuSlot slot : slots) {
            SlotCounters c = SlotCounters.read(redis, slot);
            lost[slot.bucket()] = afterLoss && !c.warmed();
            before.add(c);
        }
        Snapshot s = snapshot(activityId, sku.skuId());
        // reservations a person holds keep their units open; any other open one refuses the attempt
        int[] inReview = openInReview(activityId, sku, s.reservations());
        for (SkuSlot slot : slots) {
            long open = before.get(slot.bucket()).openReservedUnits();
            if (open != inReview[slot.bucket()] && !lost[slot.bucket()]) {
                return refused("bucket " + slot.bucket() + " has " + open + " open reservations, "
                        + inReview[slot.bucket()] + " of them under manual review");
            }
        }
        int[] committed = new int[sku.buckets()];
        String blocker = blocker(activityId, sku, s, committed);
        if (blocker != null) {
            return refused(blocker);
        }
        List<Judged> stale = afterLoss ? behind(activityId, sku, s.reservations(), lost) : List.of();
        List<String> held = stale.isEmpty() ? List.of() : held(stale);
        if (!held.isEmpty()) {
            // a hold means nobody writes the reservation; its hash cannot be set aside while its counts are rewritten
            return refused("reservations under a hold still RESERVED in Redis: " + held);
        }
        int behind = removeBehind(activityId, sku, stale);
        long holding = s.pg().occupied() + s.pg().sold();
        long inTransit = transfers.inTransit(a, sku);
        long reviewed = Arrays.stream(inReview).sum();
        // PostgreSQL counts a unit under review as available: it never took it; Redis holds it until given back
        long stock = s.pg().available() - inTransit - reviewed;
        if (stock < 0) {
            return refused("PostgreSQL available " + s.pg().available() + " < " + inTransit + " units in transit + "
                    + reviewed + " under manual review");
        }
        List<String> changed = new ArrayList<>();
        for (SkuSlot slot : slots) {
            SlotCounters c = before.get(slot.bucket());
            int stockB = ActivityService.share((int) stock, slot.bucket(), sku.buckets());
            int committedB = committed[slot.bucket()];
            int reviewB = inReview[slot.bucket()];
            if (Long.toString(stockB).equals(c.stock())
                    && Long.toString(stockB + committedB + reviewB).equals(c.initial())
                    && Long.toString(committedB).equals(c.committed())
                    && c.openReservedUnits() == reviewB) {
                continue;
            }
            List<Object> r = RECALIBRATE.run(
                    redis,
                    new String[] {slot.stock(), slot.counter(), slot.meta()},
                    Integer.toString(stockB),
                    Integer.toString(committedB),
                    c.stock(),
                    c.initial(),
                    c.committed(),
                    lost[slot.bucket()] ? "LOST" : "",
                    Integer.toString(reviewB));
            if (ScriptReply.of(r).code() != 1) {
                return refused(
                        "bucket " + slot.bucket() + ": " + ScriptReply.of(r).word()
                                + (changed.isEmpty() ? "" : " (buckets " + changed + " recalibrated)"));
            }
            changed.add(slot.bucket() + ": stock " + c.stock() + " -> " + stockB + ", committed " + c.committed()
                    + " -> " + committedB);
        }
        Map<String, Object> after = new LinkedHashMap<>();
        after.put("stock", stock);
        after.put("committed", holding);
        after.put("in_transit", inTransit);
        if (reviewed > 0) {
            after.put("open_under_manual_review", reviewed);
        }
        after.put("buckets_changed", changed);
        if (behind > 0) {
            after.put("hashes_behind_postgresql", behind);
        }
        if (changed.isEmpty()) {
            return new Attempt(true, false, "Redis already agrees with PostgreSQL " + after, s.reservations());
        }
        holds.audit(
                Reconciler.OPERATOR,
                RULE,
                ObjectKind.SKU,
                activityId + ":" + sku.skuId(),
                Map.of("redis", countersText(before)),
                after,
                Map.of("pg", s.pg().toString()),
                reason);
        meters.counter("reconcile.redis_recalibration").increment();
        log.warn(
                "reconcile.redis_recalibrated activity_id={} sku_id={} reason=\"{}\" after={}",
                activityId,
                sku.skuId(),
                reason,
                after);
        return new Attempt(true, true, after.toString(), s.reservations());
    }

    private record Snapshot(SkuInventory pg, List<Judged> reservations, long unappliedAdjustments) {}

    /**
     * Why the snapshot cannot be written to Redis now (null when it can): a stock adjustment whose Redis half
     * is not applied, PostgreSQL's own counts not adding up, a release not yet in Redis. Fills in the units
     * each bucket's buyers hold.
     */
    private String blocker(long activityId, Activity.Sku sku, Snapshot s, int[] committed) {
        if (s.unappliedAdjustments() > 0) {
            return s.unappliedAdjustments() + " stock adjustments not yet applied in Redis";
        }
        long holding = 0;
        for (Judged k : s.reservations()) {
            if (k.status() == ReservationStatus.ORDER_CREATED) {
                committed[slotOf(activityId, sku, k).bucket()]++;
                holding++;
            }
        }
        if (holding != (long) s.pg().occupied() + s.pg().sold()) {
            return "PostgreSQL: " + holding + " reservations hold an order's unit, occupied + sold = "
                    + (s.pg().occupied() + s.pg().sold());
        }
        return pendingRelease(activityId, sku, s.reservations());
    }

    /** PostgreSQL's counts and every reservation of the SKU, as of one moment. */
    private Snapshot snapshot(long activityId, long skuId) {
        return snapshotTx.execute(tx -> new Snapshot(
                pg(activityId, skuId),
                reservations.ofSku(activityId, skuId),
                adjustments.unapplied(activityId, skuId)));
    }

    /**
     * After a loss: the reservations of lost slots whose hash still says {@code RESERVED} while PostgreSQL
     * decided them (an order made or refused). Their counter moves are in the snapshot's counts.
     */
    private List<Judged> behind(long activityId, Activity.Sku sku, List<Judged> rows, boolean[] lost) {
        List<Judged> decided = rows.stream()
                .filter(k -> lost[slotOf(activityId, sku, k).bucket()]
                        && (k.status() == ReservationStatus.ORDER_CREATED
                                || k.status() == ReservationStatus.ORDER_REJECTED
                                || k.status() == ReservationStatus.COMPENSATING))
                .toList();
        List<String> states = statuses(activityId, sku, decided);
        List<Judged> out = new ArrayList<>();
        for (int i = 0; i < decided.size(); i++) {
            if (HashStatus.RESERVED.name().equals(states.get(i))) {
                out.add(decided.get(i));
            }
        }
        return out;
    }

    /**
     * Deletes the hashes {@link #behind} found; {@link #restoreLost} writes them back with PostgreSQL's
     * state once the counters are set. A projection that moves one of them before the delete changes the
     * counters read first, and the script then refuses the write ({@code CHANGED}).
     */
    private int removeBehind(long activityId, Activity.Sku sku, List<Judged> behind) {
        int removed = 0;
        for (Judged k : behind) {
            removed += redis.sync()
                    .del(slotOf(activityId, sku, k)
                            .reservation(k.reservationId().toString()))
                    .intValue();
        }
        if (removed > 0) {
            log.warn(
                    "reconcile.hashes_behind_removed activity_id={} sku_id={} hashes={} (restored with PostgreSQL's state "
                            + "after the recalibration)",
                    activityId,
                    sku.skuId(),
                    removed);
        }
        return removed;
    }

    /**
     * How many reservations of the SKU a person holds (MANUAL_REVIEW) while their hash still holds the unit
     * open in Redis: the open count a recalibration leaves in place instead of waiting for it.
     */
    long openInReview(Activity a, Activity.Sku sku) {
        List<Judged> rows = reservations.inReview(a.activityId(), sku.skuId());
        return rows.isEmpty()
                ? 0
                : Arrays.stream(openInReview(a.activityId(), sku, rows)).sum();
    }

    /** Per bucket: the reservations among {@code rows} under manual review whose hash is still RESERVED. */
    private int[] openInReview(long activityId, Activity.Sku sku, List<Judged> rows) {
        List<Judged> reviewed = rows.stream()
                .filter(k -> k.status() == ReservationStatus.MANUAL_REVIEW)
                .toList();
        int[] out = new int[sku.buckets()];
        List<String> states = statuses(activityId, sku, reviewed);
        for (int i = 0; i < reviewed.size(); i++) {
            if (ReservationStatus.RESERVED.name().equals(states.get(i))) {
                out[slotOf(activityId, sku, reviewed.get(i)).bucket()]++;
            }
        }
        return out;
    }

    /** The ids of those reservations that are under a manual hold. */
    private List<String> held(List<Judged> rows) {
        return holds.holds(rows.stream().map(k -> k.reservationId().toString()).toList()).stream()
                .map(m -> String.valueOf(m.get("object_id")))
                .toList();
    }

    /** The slot of the reservation's buyer (their home bucket). */
    private static SkuSlot slotOf(long activityId, Activity.Sku sku, Judged k) {
        return SkuSlot.forUser(activityId, sku.skuId(), sku.buckets(), k.userId());
    }

    /**
     * Null when Redis has the release of every order PostgreSQL cancelled, else which one it lacks: the
     * snapshot counts that unit as available, and its release would add it a second time.
     */
    private String pendingRelease(long activityId, Activity.Sku sku, List<Judged> rows) {
        List<Judged> cancelled = rows.stream()
                .filter(k -> k.status() == ReservationStatus.CANCELLED)
                .toList();
        List<String> states = statuses(activityId, sku, cancelled);
        for (int i = 0; i < cancelled.size(); i++) {
            String status = states.get(i);
            if (status != null && !HashStatus.CANCELLED.name().equals(status)) {
                return "the release of cancelled reservation "
                        + cancelled.get(i).reservationId() + " is not in Redis yet (" + status + ")";
            }
        }
        return null;
    }

    /**
     * Every reservation PostgreSQL decided whose hash Redis lost gets it back, without a counter move (the
     * recalibrated counters count it already): an order's with its status and buyer mark, a rejected one's
     * as COMPENSATED with its compensation marker - PostgreSQL never took that unit, so the pending
     * compensation finds the work done instead of adding it again. Reservations under a hold are left alone.
     */
    private void restoreLost(Activity a, Activity.Sku sku, List<Judged> rows) {
        long activityId = a.activityId();
        List<Judged> decided = rows.stream()
                .filter(k -> k.status() == ReservationStatus.ORDER_CREATED
                        || k.status() == ReservationStatus.CANCELLED
                        || k.status() == ReservationStatus.ORDER_REJECTED
                        || k.status() == ReservationStatus.COMPENSATING)
                .toList();
        List<String> states = statuses(activityId, sku, decided);
        List<Judged> lost = new ArrayList<>();
        for (int i = 0; i < decided.size(); i++) {
            if (states.get(i) == null) {
                lost.add(decided.get(i));
            }
        }
        if (lost.isEmpty()) {
            return;
        }
        List<String> held = held(lost);
        int restored = 0;
        int absorbed = 0;
        for (Judged k : lost) {
            String rid = k.reservationId().toString();
            if (held.contains(rid)) {
                continue;
            }
            SkuSlot slot = slotOf(activityId, sku, k);
            if (k.status() == ReservationStatus.ORDER_CREATED || k.status() == ReservationStatus.CANCELLED) {
                String target = k.status() == ReservationStatus.CANCELLED
                        ? HashStatus.CANCELLED.name()
                        : OrderProjection.redisStatus(k.orderStatus());
                restored += ScriptReply.of(projection.restoreHash(
                                        slot,
                                        rid,
                                        String.valueOf(k.orderId()),
                                        target,
                                        k.userId(),
                                        k.requestId().toString(),
                                        k.messageId().toString()))
                                .done()
                        ? 1
                        : 0;
            } else {
                projection.restoreHash(
                        slot,
                        rid,
                        null,
                        HashStatus.COMPENSATED.name(),
                        k.userId(),
                        k.requestId().toString(),
                        k.messageId().toString());
                redis.sync()
                        .set(
                                slot.compensationMarker(rid),
                                CompensationTasks.taskId(k.reservationId()).toString());
                absorbed++;
            }
        }
        meters.counter("reconcile.recalibration.hashes_restored").increment(restored + absorbed);
        log.warn(
                "reconcile.lost_hashes_restored activity_id={} sku_id={} orders={} compensations_absorbed={} held={}",
                activityId,
                sku.skuId(),
                restored,
                absorbed,
                held.size());
    }

    /** The Redis status of each reservation's hash (null where it is gone), read in one pipeline. */
    private List<String> statuses(long activityId, Activity.Sku sku, List<Judged> rows) {
        List<RedisFuture<String>> futures = new ArrayList<>(rows.size());
        for (Judged k : rows) {
            SkuSlot slot = slotOf(activityId, sku, k);
            futures.add(redis.async().hget(slot.reservation(k.reservationId().toString()), "status"));
        }
        List<String> out = new ArrayList<>(rows.size());
        futures.forEach(f -> out.add(ReservationRules.status(f)));
        return out;
    }

    /** A live recalibration that did not happen this run, counted and logged with why; its REFUSED answer. */
    private String deferred(String reason, long activityId, Activity.Sku sku, String detail) {
        meters.counter("reconcile.recalibration.deferred", "reason", reason).increment();
        log.warn(
                "reconcile.recalibration_deferred activity_id={} sku_id={} reason={}: {}",
                activityId,
                sku.skuId(),
                reason,
                detail);
        return "REFUSED: " + detail;
    }

    private static Attempt refused(String why) {
        return new Attempt(false, false, why, List.of());
    }

    /**
     * Step 1: every slot of the SKU that admits buyers refuses them (its meta says PAUSED) until resumed;
     * returns the slots this call paused.
     */
    private List<SkuSlot> pause(Activity a, Activity.Sku sku) {
        List<SkuSlot> paused = new ArrayList<>();
        for (SkuSlot slot : a.slots(sku)) {
            if (ScriptReply.of(PAUSE_SLOT.run(
                            redis,
                            new String[] {slot.meta()},
                            "PAUSE",
                            "",
                            Long.toString(a.startsAt().toEpochMilli()),
                            Long.toString(a.endsAt().toEpochMilli())))
                    .done()) {
                paused.add(slot);
            }
        }
        return paused;
    }

    /** Step 5: the paused slots take the sale's status as PostgreSQL has it now (a cached one could reopen a closed sale). */
    private int resume(Activity a, Activity.Sku sku, List<SkuSlot> slots) {
        if (slots.isEmpty()) {
            return 0;
        }
        Activity now = registry.load(a.activityId()).orElse(a);
        String status = now.status().warmed() ? now.status().name() : SaleStatus.CLOSED.name();
        int resumed = 0;
        for (SkuSlot slot : slots) {
            try {
                resumed += (int) ScriptReply.of(PAUSE_SLOT.run(
                                redis,
                                new String[] {slot.meta()},
                                "RESUME",
                                status,
                                Long.toString(now.startsAt().toEpochMilli()),
                                Long.toString(now.endsAt().toEpochMilli())))
                        .code();
            } catch (RuntimeException e) {
                // the slot stays paused; the next reconcile run resumes it (resumeStale)
                meters.counter("reconcile.recalibration.resume_failed").increment();
                log.error(
                        "reconcile.resume_failed activity_id={} sku_id={} bucket={} error_class={}: {}",
                        a.activityId(),
                        sku.skuId(),
                        slot.bucket(),
                        e.getClass().getName(),
                        e.getMessage());
            }
        }
        return resumed;
    }

    /**
     * Null once nothing can still move the SKU's counts under a live recalibration, else what it waits for: a
     * reservation open in Redis (but those under manual review), or an order message still on its way
     * ({@link OrderMessagesInFlight}). Redis does not count a reservation whose hash a failover lost, while its
     * message may still be on the broker: PostgreSQL would take that unit after the snapshot, and Redis would sell
     * it once more.
     */
    private String unsettled(Activity a, Activity.Sku sku, long inReview, OrderMessagesInFlight inFlight) {
        long open = openReserved(a, sku);
        if (open != inReview) {
            return open + " reservations still open (" + inReview + " of them under manual review)";
        }
        return inFlight.pending();
    }

    /**
     * The order messages a live recalibration waits for: those stored on the order topic or its retry topic before
     * the pause (the queues' ends at the pause are the marks, {@link BrokerBacklog#ends} - offsets, no clock), and
     * those a failed consume sent back, waiting in the broker's delay queues for their redelivery (on no queue the
     * group's offsets cover: {@link BrokerBacklog#delayed}). Once such a message is redelivered it lands on the
     * retry topic after the marks, so the marks are taken again once the delay queues hold none. A backlog that
     * cannot be read (a broker away) defers the recalibration.
     */
    private final class OrderMessagesInFlight {

        private final String group = props.mq().orderConsumerGroup();
        private final String[] topics = {props.mq().orderRequestTopic(), MixAll.getRetryTopic(group)};
        private Map<MessageQueue, Long> marks = orderQueueEnds();
        /**
         * Looks that take the queues' ends again: a message redelivered from a delay queue lands on the retry topic
         * after the marks, and the broker files it there a moment after it leaves the delay queue - so twice.
         */
        private int remarks;
        /** The last look found nothing on its way. */
        private boolean quiet;

        /** Null once none is left, else what is still on its way. */
        String pending() {
            try {
                if (marks == null) {
                    marks = backlog.ends(group, topics);
                }
                String delayed = delayed();
                if (delayed != null) {
                    return delayed;
                }
                if (remarks > 0) {
                    marks = backlog.ends(group, topics);
                    remarks--;
                    quiet = false;
                }
                long behind = backlog.behind(group, marks, topics);
                if (behind > 0) {
                    quiet = false;
                    return behind + " order messages sent before the pause not consumed yet";
                }
                // a consume that failed since the first look has sent its message back: it is in a delay queue now
                String late = delayed();
                if (late != null) {
                    return late;
                }
                // the broker files a message sent back into its delay queue a moment after the group's offset has
                // moved past it: nothing is on its way only when two looks in a row say so
                if (!quiet) {
                    quiet = true;
                    return "confirming that no order message is on its way";
                }
                return null;
            } catch (Exception e) {
                quiet = false;
                return "order backlog unknown: " + e.getMessage();
            }
        }

        private String delayed() throws Exception {
            long n = backlog.delayed(topics[1], topics);
            if (n == 0) {
                return null;
            }
            remarks = 2;
            quiet = false;
            return n + " order messages waiting in the broker's delay queues for redelivery";
        }
    }

    /** Where the order topic and its retry topic end now; null when the broker cannot say. */
    private Map<MessageQueue, Long> orderQueueEnds() {
        String group = props.mq().orderConsumerGroup();
        try {
            return backlog.ends(group, props.mq().orderRequestTopic(), MixAll.getRetryTopic(group));
        } catch (Exception e) {
            log.warn(
                    "reconcile.order_backlog_unknown error_class={}: {}",
                    e.getClass().getName(),
                    e.getMessage());
            return null;
        }
    }

    /** Open reservations over the SKU's slots (a missing counter counts none). */
    private long openReserved(Activity a, Activity.Sku sku) {
        long open = 0;
        for (SkuSlot slot : a.slots(sku)) {
            String v = redis.sync().hget(slot.counter(), "open_reserved");
            open += v == null ? 0 : Math.abs(Long.parseLong(v));
        }
        return open;
    }

    /** Step 2 after a loss: null when nothing is in flight for the SKU any more, else why not. */
    private String drained(Activity a, Activity.Sku sku) {
        long outbox = outboxRepo.skuBacklog(a.activityId(), sku.skuId());
        if (outbox > 0) {
            return outbox + " outbox events unsent";
        }
        // a reservation whose message has not left yet is open: the snapshot could not count it
        long unsent = 0;
        for (SkuSlot slot : a.slots(sku)) {
            unsent += redis.sync().zcard(slot.sendDue());
        }
        if (unsent > 0) {
            return unsent + " order messages not yet sent";
        }
        try {
            // a message waiting for redelivery sits in the group's retry topic: it is still in flight
            String group = props.mq().orderConsumerGroup();
            String retry = MixAll.getRetryTopic(group);
            long age = backlog.oldestUnconsumedAgeMs(group, props.mq().orderRequestTopic(), retry);
            if (age > 0) {
                return "order messages unconsumed for " + age + " ms";
            }
            // a consume that failed sent its message back: it waits in a delay queue, on neither topic
            long delayed = backlog.delayed(retry, props.mq().orderRequestTopic(), retry);
            return delayed == 0
                    ? null
                    : delayed + " order messages waiting in the broker's delay queues for redelivery";
        } catch (Exception e) {
            return "order backlog unknown: " + e.getMessage();
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the SKU's reservations to settle", e);
        }
    }

    private static String countersText(List<SlotCounters> counters) {
        StringBuilder out = new StringBuilder();
        for (int b = 0; b < counters.size(); b++) {
            out.append(b == 0 ? "" : "; ")
                    .append("bucket ")
                    .append(b)
                    .append(": ")
                    .append(counters.get(b).describe());
        }
        return out.toString();
    }

    private int warmedSlots(long activityId, Activity.Sku sku) {
        int n = 0;
        for (SkuSlot slot : SkuSlot.all(activityId, sku.skuId(), sku.buckets())) {
            if (redis.sync().exists(slot.counter()) == 1) {
                n++;
            }
        }
        return n;
    }

    private SkuInventory pg(long activityId, long skuId) {
        return stock.ofActivity(activityId).stream()
                .filter(i -> i.skuId() == skuId)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no inventory for " + activityId + "/" + skuId));
    }
}
