package io.seckill.reconcile;

import io.lettuce.core.RedisFuture;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.activity.SaleRegistry;
import io.seckill.activity.StockAdjustments;
import io.seckill.anomaly.AnomalyRepository;
import io.seckill.compensation.CompensationTaskRepository;
import io.seckill.compensation.CompensationWorker;
import io.seckill.config.SeckillProperties;
import io.seckill.hold.ManualHolds;
import io.seckill.mq.BrokerBacklog;
import io.seckill.order.OrderRepository;
import io.seckill.outbox.OutboxRepository;
import io.seckill.projection.OrderProjection;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.BucketTransfers;
import io.seckill.reservation.Judged;
import io.seckill.reservation.ReservationRepository;
import io.seckill.state.ReservationStatus;
import io.seckill.state.TaskStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.common.MixAll;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Watermark reconciliation (DESIGN.md §10.6, §11.5, §13.4, §13.5), per activity and SKU: the PostgreSQL
 * invariant, the Redis invariant, the per-reservation rules, stale outbox leases and the
 * cross-system equation. Only rows last changed before the watermark are judged, so work still in
 * flight is never "repaired". What the design marks automatic is repaired through the standard
 * scripts and state machines as an idempotent {@link Repairs repair task}; everything else becomes
 * an anomaly with its evidence, for a human. Running it twice, at once or in a row, changes
 * nothing the second time.
 */
@Component
public class Reconciler {

    private static final Logger log = LoggerFactory.getLogger(Reconciler.class);
    static final String OPERATOR = "reconciler";
    /** A SKU one of whose reservation hashes Redis had lost while PostgreSQL holds its order: recalibration is due. */
    static final String RESERVATIONS_LOST = "REDIS_RESERVATIONS_LOST";

    private final SaleRegistry registry;
    private final ActivityService activities;
    private final ReconcileRepository repo;
    private final Repairs repairs;
    private final AnomalyRepository anomalies;
    private final CompensationTaskRepository tasks;
    private final CompensationWorker compensation;
    private final OrderProjection projection;
    private final RedisRecalibration recalibration;
    private final ManualHolds holds;
    private final StockAdjustments adjustments;
    private final OrderRepository orders;
    private final OutboxRepository outbox;
    private final Redis redis;
    private final MeterRegistry meters;
    private final ReservationRepository reservations;
    private final BucketTransfers transfers;
    private final BrokerBacklog backlog;
    private final String projectionGroup;
    private final String eventTopic;
    private final Timer runTimer;
    private final AtomicLong watermarkLag = new AtomicLong();
    private final AtomicLong anomalyAge = new AtomicLong();
    private final Map<String, AtomicLong> gauges = new ConcurrentHashMap<>();
    /** Per SKU: where the change windows stand and when the last full pass was. */
    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    private final Duration fullPassEvery;
    private static final int PAGE = 1000;

    private record Window(Judged.Cursor reservations, Judged.Cursor orders, long fullAtNanos) {}

    Reconciler(
            SaleRegistry registry,
            ActivityService activities,
            ReconcileRepository repo,
            Repairs repairs,
            AnomalyRepository anomalies,
            CompensationTaskRepository tasks,
            CompensationWorker compensation,
            OrderProjection projection,
            RedisRecalibration recalibration,
            ManualHolds holds,
            StockAdjustments adjustments,
            Redis redis,
            MeterRegistry meters,
            ReservationRepository reservations,
            OrderRepository orders,
            OutboxRepository outbox,
            BucketTransfers transfers,
            BrokerBacklog backlog,
            SeckillProperties props) {
        this.orders = orders;
        this.backlog = backlog;
        this.projectionGroup = props.mq().projectionGroup();
        this.eventTopic = props.mq().orderEventTopic();
        this.transfers = transfers;
        this.outbox = outbox;
        this.reservations = reservations;
        this.fullPassEvery = props.reconcile().fullPassEvery();
        this.registry = registry;
        this.activities = activities;
        this.repo = repo;
        this.repairs = repairs;
        this.anomalies = anomalies;
        this.tasks = tasks;
        this.compensation = compensation;
        this.projection = projection;
        this.recalibration = recalibration;
        this.holds = holds;
        this.adjustments = adjustments;
        this.redis = redis;
        this.meters = meters;
        this.runTimer = Timer.builder("reconcile.run.duration").register(meters);
        meters.counter("outbox.lease.expired");
        Gauge.builder("reconcile.anomaly.age.seconds", anomalyAge, AtomicLong::get)
                .description("how long the oldest open anomaly has waited for a person (as of the last run)")
                .register(meters);
        Gauge.builder("reconcile.watermark.lag.seconds", watermarkLag, v -> v.get() / 1000.0)
                .register(meters);
    }

    /** What one run saw and did. */
    public record Report(
            List<SkuReport> skus,
            Map<String, Integer> repairs,
            Map<String, Integer> anomalies,
            int staleOutboxReclaimed,
            long millis) {
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("skus", skus);
            m.put("repairs", repairs);
            m.put("anomalies", anomalies);
            m.put("stale_outbox_reclaimed", staleOutboxReclaimed);
            m.put("millis", millis);
            return m;
        }
    }

    public record SkuReport(
            long activityId,
            long skuId,
            long reservationsChecked,
            long pgInvariantDelta,
            long redisInvariantDelta,
            long crossSystemDelta,
            String redisState) {}

    /** One run over {@code activityId} (or every live sale when null), judging only what is older than {@code watermark}. */
    public Report run(Long activityId, Duration watermark) {
        long t0 = System.nanoTime();
        watermarkLag.set(watermark.toMillis());
        Map<String, Integer> done = new TreeMap<>();
        Map<String, Integer> found = new TreeMap<>();
        List<SkuReport> skus = new ArrayList<>();
        List<Activity> sales = activityId == null
                ? registry.live()
                : registry.load(activityId).map(List::of).orElse(List.of());
        for (Activity a : sales) {
            for (Activity.Sku sku : a.skus()) {
                try {
                    skus.add(reconcileSku(a, sku, watermark, activityId != null, done, found));
                } catch (RuntimeException e) {
                    // one SKU that cannot be read (a Redis timeout, say) does not end the run for the others
                    meters.counter("reconcile.sku.failed").increment();
                    log.warn(
                            "reconcile.sku_failed activity_id={} sku_id={} error_class={}: {}",
                            a.activityId(),
                            sku.skuId(),
                            e.getClass().getName(),
                            e.getMessage());
                    skus.add(new SkuReport(
                            a.activityId(),
                            sku.skuId(),
                            0,
                            0,
                            0,
                            0,
                            "FAILED: " + e.getClass().getSimpleName() + ": " + e.getMessage()));
                }
            }
        }
        if (activityId == null) {
            java.util.Set<Long> live = new java.util.HashSet<>();
            sales.forEach(a -> live.add(a.activityId()));
            gauges.keySet().stream()
                    .map(k -> Long.parseLong(k.split("\\|")[1]))
                    .filter(id -> !live.contains(id))
                    .distinct()
                    .toList()
                    .forEach(this::forget);
        }
        resolveOrphans(done);
        anomalyAge.set((long) anomalies.oldestOpenAgeSeconds());
        int reclaimed = reclaimStaleOutbox(watermark, done);
        finishStockAdjustments(watermark, done);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        runTimer.record(ms, TimeUnit.MILLISECONDS);
        log.info(
                "reconcile.run activities={} repairs={} anomalies={} stale_outbox_reclaimed={} millis={}",
                sales.size(),
                done,
                found,
                reclaimed,
                ms);
        return new Report(skus, done, found, reclaimed, ms);
    }

    private SkuReport reconcileSku(
            Activity a,
            Activity.Sku sku,
            Duration watermark,
            boolean full,
            Map<String, Integer> done,
            Map<String, Integer> found) {
        long activityId = a.activityId();
        int landed = transfers.finishStale(a, sku, watermark);
        if (landed > 0) {
            done.merge("FINISH_BUCKET_TRANSFER", landed, Integer::sum);
        }
        ActivityService.InventoryView view = view(activityId, sku.skuId());
        long pgDelta = view.pg().invariantDelta();
        gauge("inventory.pg.invariant.delta", activityId, sku.skuId()).set(pgDelta);
        if (pgDelta != 0) {
            anomaly(
                    found,
                    "PG_INVARIANT_BROKEN",
                    "SKU",
                    activityId + ":" + sku.skuId(),
                    activityId,
                    sku.skuId(),
                    Map.of("pg", view.pg().toString()));
        }
        String redisState = "OK";
        boolean warmedSale = a.status().warmed();
        if (warmedSale && view.redis().warmedBuckets() < sku.buckets()) {
            redisState = recalibration.recover(a, sku, found);
            if (!"RECALIBRATED".equals(redisState)) {
                return new SkuReport(activityId, sku.skuId(), 0, pgDelta, 0, 0, redisState);
            }
            count(done, "REDIS_RECALIBRATION");
            view = view(activityId, sku.skuId());
        } else if (warmedSale && recalibration.resumeStale(a, sku) > 0) {
            count(done, "RESUME_PAUSED_SLOT");
        }
        long redisDelta = view.redis().invariantDelta();
        gauge("inventory.redis.invariant.delta", activityId, sku.skuId()).set(redisDelta);
        if (redisDelta != 0) {
            anomaly(
                    found,
                    "REDIS_INTERNAL_INVARIANT_BROKEN",
                    "SKU",
                    activityId + ":" + sku.skuId(),
                    activityId,
                    sku.skuId(),
                    Map.of("redis", view.redis().toString()));
        }

        long checked = 0;
        int repairsBefore = done.values().stream().mapToInt(Integer::intValue).sum();
        String key = activityId + ":" + sku.skuId();
        Window window = full ? null : windows.get(key);
        long fullAt = window == null ? 0 : window.fullAtNanos();
        if (window == null || System.nanoTime() - fullAt > fullPassEvery.toNanos()) {
            // a full pass: every reservation of the SKU from the beginning of time; orders from the watermark on
            window = new Window(
                    Judged.Cursor.START,
                    new Judged.Cursor(repo.windowStart(watermark), Judged.Cursor.START.id()),
                    System.nanoTime());
            fullAt = window.fullAtNanos();
        }
        // reservation rows changed since the cursor, then orders paid or cancelled since theirs
        Judged.Cursor[] cursors = {window.reservations(), window.orders()};
        for (int kind = 0; kind < 2; kind++) {
            while (true) {
                Judged.Page page = kind == 0
                        ? reservations.changed(activityId, sku.skuId(), cursors[kind], watermark, PAGE)
                        : orders.changed(activityId, sku.skuId(), cursors[kind], watermark, PAGE);
                judge(activityId, sku, page.rows(), done, found);
                checked += page.rows().size();
                cursors[kind] = page.next();
                if (page.rows().size() < PAGE) {
                    break;
                }
            }
        }
        windows.put(key, new Window(cursors[0], cursors[1], fullAt));

        view = view(activityId, sku.skuId());
        long supply = supplyDelta(activityId, sku, view);
        if (supply != 0) {
            // counters and transfers are read apart: a landing between the reads is seen once, a lost write twice
            view = view(activityId, sku.skuId());
            supply = supplyDelta(activityId, sku, view);
        }
        gauge("inventory.supply.delta", activityId, sku.skuId()).set(supply);
        long cross = view.crossSystemDelta();
        int repairsNow = done.values().stream().mapToInt(Integer::intValue).sum();
        boolean drift = (cross != 0 || supply != 0)
                && repairsNow == repairsBefore
                && outbox.skuBacklog(activityId, sku.skuId()) == 0
                && (view.redis().openReserved() == 0
                        // reservations a person holds stay open: they do not hide a drift
                        || view.redis().openReserved() == recalibration.openInReview(a, sku))
                && projectionCaughtUp();
        Map<String, Object> evidence = Map.of(
                "redis", view.redis().toString(), "pg", view.pg().toString(), "delta", cross, "supply_delta", supply);
        if (drift) {
            anomaly(
                    found,
                    cross != 0 ? "CROSS_SYSTEM_DELTA" : "SUPPLY_DELTA",
                    "SKU",
                    key,
                    activityId,
                    sku.skuId(),
                    evidence);
        }
        // an open REDIS_RESERVATIONS_LOST (written when a lost hash was restored, here or in an earlier run) keeps the
        // recalibration due until one succeeds
        if (warmedSale && (drift || anomalies.isOpen(RESERVATIONS_LOST, key))) {
            String live = recalibration.recalibrateLive(
                    a,
                    sku,
                    !drift
                            ? "Redis had lost reservations PostgreSQL holds"
                            : cross != 0
                                    ? "Redis committed differs from PostgreSQL by " + cross
                                    : "Redis holds " + supply + " units more than PostgreSQL's initial",
                    evidence);
            if ("RECALIBRATED".equals(live)) {
                count(done, "REDIS_RECALIBRATION");
            }
            if ("RECALIBRATED".equals(live) || "UNCHANGED".equals(live)) {
                view = view(activityId, sku.skuId());
                cross = view.crossSystemDelta();
                String resolution = "Redis counters " + ("UNCHANGED".equals(live) ? "agreed with" : "recalibrated from")
                        + " PostgreSQL";
                anomalies.resolve(RESERVATIONS_LOST, key, resolution);
                if (supplyDelta(activityId, sku, view) == 0) {
                    anomalies.resolve("SUPPLY_DELTA", key, resolution);
                }
                if (cross == 0 && anomalies.resolve("CROSS_SYSTEM_DELTA", key, resolution)) {
                    log.info(
                            "reconcile.cross_system_delta_resolved activity_id={} sku_id={} recalibration={}",
                            activityId,
                            sku.skuId(),
                            live);
                }
            }
            redisState = live;
        }
        gauge("inventory.cross_system.delta", activityId, sku.skuId()).set(cross);
        return new SkuReport(
                activityId, sku.skuId(), checked, pgDelta, view.redis().invariantDelta(), cross, redisState);
    }

    /** A page of reservations: their Redis states in one pipelined read, then the rules of each. */
    private void judge(
            long activityId,
            Activity.Sku sku,
            List<Judged> rows,
            Map<String, Integer> done,
            Map<String, Integer> found) {
        List<SkuSlot> slots = new ArrayList<>(rows.size());
        List<RedisFuture<String>> states = new ArrayList<>(rows.size());
        for (Judged r : rows) {
            SkuSlot slot = SkuSlot.forUser(activityId, sku.skuId(), sku.buckets(), r.userId());
            slots.add(slot);
            states.add(redis.async().hget(slot.reservation(r.reservationId().toString()), "status"));
        }
        for (int i = 0; i < rows.size(); i++) {
            Judged row = rows.get(i);
            try {
                reservationRules(slots.get(i), row, status(states.get(i)), done, found);
            } catch (RuntimeException e) {
                // one reservation whose rule fails is counted and reported; the next full pass judges it again
                count(done, "RULE_FAILED");
                meters.counter("reconcile.rule.failed").increment();
                log.warn(
                        "reconcile.rule_failed reservation_id={} activity_id={} sku_id={} error_class={}: {}",
                        row.reservationId(),
                        activityId,
                        sku.skuId(),
                        e.getClass().getName(),
                        e.getMessage());
            }
        }
    }

    /** DESIGN.md §13.5, one reservation. */
    private void reservationRules(
            SkuSlot slot, Judged r, String actual, Map<String, Integer> done, Map<String, Integer> found) {
        String rid = r.reservationId().toString();
        switch (r.status()) {
            case ORDER_CREATED, CANCELLED -> {
                if (r.orderStatus() == null) {
                    anomaly(
                            found,
                            "RESERVATION_WITHOUT_ORDER",
                            "RESERVATION",
                            rid,
                            slot.activityId(),
                            slot.skuId(),
                            evidence(r, actual, r.status().name()));
                    return;
                }
                String expected = r.status() == ReservationStatus.CANCELLED
                        ? "CANCELLED"
                        : OrderProjection.redisStatus(r.orderStatus());
                if (expected.equals(actual)) {
                    return;
                }
                if ("PAID".equals(expected) && "COMPENSATED".equals(actual)) {
                    Map<String, Object> ev = evidence(r, actual, expected);
                    anomaly(
                            found,
                            "PAID_BUT_REDIS_COMPENSATED",
                            "RESERVATION",
                            rid,
                            slot.activityId(),
                            slot.skuId(),
                            ev);
                    holds.hold(
                            "RESERVATION",
                            rid,
                            r.status().name(),
                            "severe conflict: PG order PAID, Redis COMPENSATED",
                            OPERATOR);
                    return;
                }
                if (!projectable(actual, expected)) {
                    anomaly(
                            found,
                            "PROJECTION_CONFLICT",
                            "RESERVATION",
                            rid,
                            slot.activityId(),
                            slot.skuId(),
                            evidence(r, actual, expected));
                    return;
                }
                Repairs.Run res = repairs.run(
                        "REBUILD_ORDER_PROJECTION",
                        "RESERVATION",
                        rid,
                        r.version(),
                        expected,
                        OPERATOR,
                        "PostgreSQL says " + expected + ", Redis says " + actual,
                        evidence(r, actual, expected),
                        () -> rebuild(slot, r, actual, expected));
                count(done, res, "REBUILD_ORDER_PROJECTION");
            }
            case ORDER_REJECTED -> {
                if (r.taskId() == null) {
                    count(done, ensureTask(r, actual), "ENSURE_COMPENSATION_TASK");
                }
            }
            case COMPENSATING -> {
                if (r.taskId() == null) {
                    count(done, ensureTask(r, actual), "ENSURE_COMPENSATION_TASK");
                } else if ("COMPENSATED".equals(actual)
                        && (r.taskStatus() == TaskStatus.RETRY
                                || r.taskStatus() == TaskStatus.PENDING
                                || (r.taskStatus() == TaskStatus.CLAIMED && r.taskLeaseExpired()))) {
                    Repairs.Run res = repairs.run(
                            "FINISH_COMPENSATION",
                            "RESERVATION",
                            rid,
                            r.version(),
                            "COMPENSATED",
                            OPERATOR,
                            "Redis already compensated; PostgreSQL still COMPENSATING",
                            evidence(r, actual, "COMPENSATED"),
                            () -> finishCompensation(r));
                    count(done, res, "FINISH_COMPENSATION");
                }
            }
            case COMPENSATED -> {
                if (r.taskId() != null
                        && (ReservationStatus.RESERVED.name().equals(actual)
                                || ReservationStatus.ORDER_REJECTED.name().equals(actual))) {
                    // a failover lost compensate.lua's write: the unit is held in Redis for a reservation that ended
                    // (live recalibration would wait for it for ever); the script again, idempotent by its marker
                    Repairs.Run res = repairs.run(
                            "REAPPLY_COMPENSATION",
                            "RESERVATION",
                            rid,
                            r.version(),
                            ReservationStatus.COMPENSATED.name(),
                            OPERATOR,
                            "PostgreSQL says COMPENSATED, Redis still holds the unit (" + actual + ")",
                            evidence(r, actual, ReservationStatus.COMPENSATED.name()),
                            () -> compensation.reapply(slot, r.reservationId(), r.taskId()));
                    count(done, res, "REAPPLY_COMPENSATION");
                } else if (actual != null
                        && !ReservationStatus.COMPENSATED.name().equals(actual)) {
                    anomaly(
                            found,
                            "COMPENSATED_BUT_REDIS_" + actual,
                            "RESERVATION",
                            rid,
                            slot.activityId(),
                            slot.skuId(),
                            evidence(r, actual, "COMPENSATED"));
                }
            }
            case RESERVED, MANUAL_REVIEW -> {
                // RESERVED belongs to the deadline sweeper; MANUAL_REVIEW to a person
            }
        }
    }

    static String status(RedisFuture<String> f) {
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading Redis", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot read a reservation's Redis state: " + e.getMessage(), e);
        }
    }

    /** The standard scripts can move {@code actual} to {@code expected}. */
    private static boolean projectable(String actual, String expected) {
        if (actual == null) {
            return true;
        }
        return switch (actual) {
            case "RESERVED" -> true;
            case "ORDER_CREATED" -> !expected.equals("ORDER_CREATED");
            case "CANCEL_PENDING" -> expected.equals("PAID") || expected.equals("CANCELLED");
            default -> false;
        };
    }

    private String rebuild(SkuSlot slot, Judged r, String actual, String expected) {
        String rid = r.reservationId().toString();
        String order = r.orderId() == null ? null : r.orderId().toString();
        if (actual == null) {
            // the hash went with writes Redis lost: whatever else went with it, the counters are settled at activity
            // level
            if (anomalies.record(
                    RESERVATIONS_LOST,
                    "SKU",
                    slot.activityId() + ":" + slot.skuId(),
                    slot.activityId(),
                    slot.skuId(),
                    Map.of("first_reservation_id", rid, "pg_status", r.status().name()))) {
                meters.counter("reconcile.anomaly", "type", RESERVATIONS_LOST).increment();
                log.error(
                        "reconcile.redis_reservations_lost activity_id={} sku_id={} reservation_id={}: a recalibration "
                                + "of the SKU is due",
                        slot.activityId(),
                        slot.skuId(),
                        rid);
            }
            List<Object> x = projection.restoreHash(
                    slot,
                    rid,
                    order,
                    expected,
                    r.userId(),
                    r.requestId().toString(),
                    r.messageId().toString());
            return "hash restored without counter moves: " + LuaScript.text(x, 1);
        }
        List<Object> x = projection.project(slot, rid, order, expected);
        if (LuaScript.code(x) < 0) {
            throw new IllegalStateException("projection refused: " + LuaScript.text(x, 1));
        }
        return LuaScript.text(x, 1);
    }

    private Repairs.Run ensureTask(Judged r, String actual) {
        return repairs.run(
                "ENSURE_COMPENSATION_TASK",
                "RESERVATION",
                r.reservationId().toString(),
                r.version(),
                "TASK_EXISTS",
                OPERATOR,
                r.status() + " without a compensation task",
                evidence(r, actual, "TASK_EXISTS"),
                () -> {
                    String task = "task " + CompensationTaskRepository.taskId(r.reservationId());
                    return tasks.insertRelease(List.of(r.reservationId())) == 1 ? task : Repairs.ALREADY + ": " + task;
                });
    }

    private String finishCompensation(Judged r) {
        String owner = OPERATOR + "-" + UUID.randomUUID();
        CompensationTaskRepository.Claimed claimed = tasks.claim(r.taskId(), owner, Duration.ofSeconds(30))
                .orElseThrow(() -> new IllegalStateException("task " + r.taskId() + " could not be claimed"));
        compensation.apply(claimed, owner);
        return "task " + r.taskId() + " finished through the compensation worker";
    }

    /**
     * The rule for index entries whose Redis reservation was gone (send_due orphans, deadline entries
     * with no hash): once PostgreSQL holds the reservation decided - its message did arrive - nothing
     * was lost and the anomaly is resolved; while PostgreSQL has no decision it stays open for a
     * person, since the unit's recovery fields are gone with the hash.
     */
    private void resolveOrphans(Map<String, Integer> done) {
        List<AnomalyRepository.Open> open = anomalies.open(
                List.of(AnomalyRepository.SEND_DUE_ORPHAN, AnomalyRepository.DEADLINE_RESERVATION_MISSING), 1000);
        if (open.isEmpty()) {
            return;
        }
        Map<AnomalyRepository.Open, UUID> byAnomaly = new LinkedHashMap<>();
        for (AnomalyRepository.Open a : open) {
            try {
                byAnomaly.put(a, UUID.fromString(a.objectId()));
            } catch (IllegalArgumentException e) {
                log.debug("reconcile.orphan_not_a_reservation object_id={}", a.objectId());
            }
        }
        Map<UUID, ReservationStatus> states = reservations.states(List.copyOf(byAnomaly.values()));
        byAnomaly.forEach((a, rid) -> {
            ReservationStatus status = states.get(rid);
            if (status != null
                    && status != ReservationStatus.RESERVED
                    && anomalies.resolve(a.anomalyId(), "PostgreSQL holds the reservation as " + status)) {
                count(done, "ORPHAN_RESOLVED");
                meters.counter("reconcile.auto.repair", "type", "ORPHAN_RESOLVED")
                        .increment();
            }
        });
    }

    private int reclaimStaleOutbox(Duration watermark, Map<String, Integer> done) {
        int n = 0;
        for (OutboxRepository.Stale e : outbox.stale(watermark)) {
            Repairs.Run res = repairs.run(
                    "OUTBOX_LEASE_RECLAIM",
                    "OUTBOX_EVENT",
                    e.eventId().toString(),
                    (long) e.attempts(),
                    "RETRY",
                    OPERATOR,
                    "SENDING with an expired lease",
                    Map.of("attempt_count", e.attempts()),
                    () -> outbox.reclaim(e.eventId()) ? "back to RETRY" : "already moved on");
            count(done, res, "OUTBOX_LEASE_RECLAIM");
            if (res == Repairs.Run.DONE) {
                meters.counter("outbox.lease.expired").increment();
                n++;
            }
        }
        return n;
    }

    /** An operator's adjustment that stopped after PostgreSQL: its Redis half, once (the Lua keeps a marker). */
    private void finishStockAdjustments(Duration watermark, Map<String, Integer> done) {
        for (UUID id : adjustments.pending(watermark)) {
            Repairs.Run res = repairs.run(
                    "FINISH_STOCK_ADJUSTMENT",
                    "STOCK_ADJUSTMENT",
                    id.toString(),
                    0L,
                    "REDIS_APPLIED",
                    OPERATOR,
                    "PostgreSQL applied the adjustment, Redis did not",
                    Map.of("adjustment_id", id.toString()),
                    () -> adjustments.applyRedis(id));
            count(done, res, "FINISH_STOCK_ADJUSTMENT");
        }
    }

    /**
     * Whether every order event on the broker has reached the projection: a cancel sent and not yet projected
     * is a difference in flight, not an anomaly. Unknown (the broker does not answer) counts as in flight.
     */
    private boolean projectionCaughtUp() {
        try {
            return backlog.oldestUnconsumedAgeMs(projectionGroup, eventTopic, MixAll.getRetryTopic(projectionGroup))
                    == 0;
        } catch (Exception e) {
            meters.counter("reconcile.projection_backlog.unknown").increment();
            log.warn(
                    "reconcile.projection_backlog_unknown error_class={}: {}",
                    e.getClass().getName(),
                    e.getMessage());
            return false;
        }
    }

    /** The supply equation's delta, or 0 while a stock adjustment's Redis half is not applied (it is off by design). */
    private long supplyDelta(long activityId, Activity.Sku sku, ActivityService.InventoryView view) {
        if (view.redis().warmedBuckets() == 0 || view.supplyDelta() == 0) {
            return 0;
        }
        return adjustments.unapplied(activityId, sku.skuId()) > 0 ? 0 : view.supplyDelta();
    }

    private ActivityService.InventoryView view(long activityId, long skuId) {
        return activities.inventoryView(activityId).stream()
                .filter(v -> v.pg().skuId() == skuId)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no inventory for " + activityId + "/" + skuId));
    }

    private void anomaly(
            Map<String, Integer> found,
            String type,
            String objectType,
            String objectId,
            long activityId,
            long skuId,
            Map<String, ?> evidence) {
        if (anomalies.record(type, objectType, objectId, activityId, skuId, evidence)) {
            meters.counter("reconcile.anomaly", "type", type).increment();
            log.error(
                    "reconcile.anomaly type={} object_type={} object_id={} activity_id={} sku_id={} evidence={}",
                    type,
                    objectType,
                    objectId,
                    activityId,
                    skuId,
                    evidence);
        }
        meters.counter("reconcile.manual", "type", type).increment();
        found.merge(type, 1, Integer::sum);
    }

    private static Map<String, Object> evidence(Judged r, String redisStatus, String expected) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("reservation_status", r.status());
        m.put("reservation_version", r.version());
        m.put("order_id", r.orderId() == null ? null : r.orderId().toString());
        m.put("order_status", r.orderStatus());
        m.put("task_status", r.taskStatus());
        m.put("redis_status", redisStatus);
        m.put("expected_redis_status", expected);
        return m;
    }

    private static void count(Map<String, Integer> done, Repairs.Run res, String rule) {
        if (res == Repairs.Run.DONE) {
            count(done, rule);
        }
    }

    private static void count(Map<String, Integer> done, String rule) {
        done.merge(rule, 1, Integer::sum);
    }

    private AtomicLong gauge(String name, long activityId, long skuId) {
        return gauges.computeIfAbsent(name + "|" + activityId + "|" + skuId, k -> {
            AtomicLong v = new AtomicLong();
            Gauge.builder(name, v, AtomicLong::get)
                    .tag("activity", Long.toString(activityId))
                    .tag("sku", Long.toString(skuId))
                    .register(meters);
            return v;
        });
    }

    /**
     * A sale that was closed out (or is no longer live) leaves the per-SKU gauges and the change
     * windows: the exported series stay bounded by the live sales, not by every sale ever run.
     */
    public void forget(long activityId) {
        String tag = "|" + activityId + "|";
        gauges.keySet().removeIf(k -> {
            if (!k.contains(tag)) {
                return false;
            }
            String[] p = k.split("\\|");
            meters.find(p[0]).tags("activity", p[1], "sku", p[2]).gauges().forEach(meters::remove);
            return true;
        });
        windows.keySet().removeIf(k -> k.startsWith(activityId + ":"));
    }
}
