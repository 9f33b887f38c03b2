package io.seckill.reconcile;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.activity.SaleRegistry;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.anomaly.StalledWork;
import io.seckill.config.SeckillProperties;
import io.seckill.order.Orders;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.Judged;
import io.seckill.reservation.Reservations;
import io.seckill.worker.SlotPass;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Watermark reconciliation (DESIGN.md §10.6, §11.5, §13.4, §13.5), per activity and SKU. Only rows last changed
 * before the watermark are judged, so work still in flight is never "repaired". The rules are each a class of
 * their own over the SKU's inventory view and its changed reservations: {@link TransferRule},
 * {@link InvariantRule}, {@link RecalibrationRule} (lost keys, lost reservations, drift), the per-reservation
 * {@link ProjectionRule} and {@link CompensationRule} ({@link ReservationRules}), {@link DriftRule}, and per run
 * {@link OrphanRule}, {@link OutboxLeaseRule}, {@link StockAdjustmentRule}. What the design marks automatic is
 * repaired through the standard scripts and state machines as an idempotent {@link Repairs repair task};
 * everything else becomes an anomaly with its evidence, for a person. Running it twice, at once or in a row,
 * changes nothing the second time.
 *
 * <p>In the worker's runs each SKU is its own unit of failure ({@link SlotPass}): a SKU that fails - a master
 * that does not answer, say - is reported and tried again after a backoff (1 s doubling to 30 s), while the
 * other SKUs are reconciled on every pass. A run an operator asks for (one sale) tries every SKU.
 */
@Component
public class Reconciler {

    private static final Logger log = LoggerFactory.getLogger(Reconciler.class);
    static final String OPERATOR = "reconciler";
    private static final int PAGE = 1000;

    private final SaleRegistry registry;
    private final ActivityService activities;
    private final ReconcileRepository repo;
    private final Anomalies anomalies;
    private final Reservations reservations;
    private final Orders orders;
    private final MeterRegistry meters;
    private final Clock clock;
    private final TransferRule transferRule;
    private final InvariantRule invariantRule;
    private final RecalibrationRule recalibrationRule;
    private final ReservationRules reservationRules;
    private final DriftRule driftRule;
    private final OrphanRule orphanRule;
    private final OutboxLeaseRule outboxLeaseRule;
    private final StockAdjustmentRule stockAdjustmentRule;
    private final SlotPass skuPass;
    private final Duration fullPassEvery;
    /** How long a gauge's value holds without a run refreshing it: three intervals, at least two minutes. */
    private final long staleAfterMs;

    private final Timer runTimer;
    private final AtomicLong watermarkLag = new AtomicLong();
    private final Reading anomalyAge = new Reading();
    private final Map<String, Reading> gauges = new ConcurrentHashMap<>();
    /** Per SKU: where the change windows stand and when the last full pass was. */
    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    private record Window(Judged.Cursor reservations, Judged.Cursor orders, long fullAtMs) {}

    Reconciler(
            SaleRegistry registry,
            ActivityService activities,
            ReconcileRepository repo,
            Anomalies anomalies,
            Reservations reservations,
            Orders orders,
            MeterRegistry meters,
            Clock clock,
            StalledWork stalled,
            TransferRule transferRule,
            InvariantRule invariantRule,
            RecalibrationRule recalibrationRule,
            ReservationRules reservationRules,
            DriftRule driftRule,
            OrphanRule orphanRule,
            OutboxLeaseRule outboxLeaseRule,
            StockAdjustmentRule stockAdjustmentRule,
            SeckillProperties props) {
        this.registry = registry;
        this.activities = activities;
        this.repo = repo;
        this.anomalies = anomalies;
        this.reservations = reservations;
        this.orders = orders;
        this.meters = meters;
        this.clock = clock;
        this.transferRule = transferRule;
        this.invariantRule = invariantRule;
        this.recalibrationRule = recalibrationRule;
        this.reservationRules = reservationRules;
        this.driftRule = driftRule;
        this.orphanRule = orphanRule;
        this.outboxLeaseRule = outboxLeaseRule;
        this.stockAdjustmentRule = stockAdjustmentRule;
        this.skuPass = SlotPass.perUnit(
                "reconciler",
                clock,
                meters,
                SlotPass.reportingTo(stalled, "reconciler", AnomalyKind.RECONCILE_SKU_STALLED));
        this.fullPassEvery = props.reconcile().fullPassEvery();
        this.staleAfterMs = Math.max(
                3 * props.reconcile().interval().toMillis(),
                Duration.ofMinutes(2).toMillis());
        this.runTimer = Timer.builder("reconcile.run.duration").register(meters);
        Gauge.builder("reconcile.anomaly.age.seconds", anomalyAge, Reading::value)
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
            long millis) {}

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
        long startedMs = clock.millis();
        watermarkLag.set(watermark.toMillis());
        Tally tally = new Tally();
        List<SkuReport> skus = new ArrayList<>();
        List<Activity> sales = activityId == null
                ? registry.live()
                : registry.load(activityId).map(List::of).orElse(List.of());
        for (Activity a : sales) {
            if (activityId == null) {
                // the worker's pass: a SKU that keeps failing backs off, the others go on
                skuPass.run(unitsOf(a), slot -> {
                    Activity.Sku sku = a.sku(slot.skuId());
                    try {
                        skus.add(reconcileSku(a, sku, watermark, false, tally));
                        return 1;
                    } catch (RuntimeException e) {
                        skus.add(failed(a, sku, e));
                        throw e;
                    }
                });
            } else {
                for (Activity.Sku sku : a.skus()) {
                    try {
                        skus.add(reconcileSku(a, sku, watermark, true, tally));
                    } catch (RuntimeException e) {
                        // one SKU that cannot be read (a Redis timeout, say) does not end the run for the others
                        skus.add(failed(a, sku, e));
                    }
                }
            }
        }
        if (activityId == null) {
            Set<Long> live = new HashSet<>();
            sales.forEach(a -> live.add(a.activityId()));
            gauges.keySet().stream()
                    .map(k -> Long.parseLong(k.split("\\|")[1]))
                    .filter(id -> !live.contains(id))
                    .distinct()
                    .toList()
                    .forEach(this::forget);
        }
        orphanRule.apply(tally);
        anomalyAge.set((long) anomalies.oldestOpenAgeSeconds());
        int reclaimed = outboxLeaseRule.apply(watermark, tally);
        stockAdjustmentRule.apply(watermark, tally);
        long ms = Math.max(0, clock.millis() - startedMs);
        runTimer.record(ms, TimeUnit.MILLISECONDS);
        log.info(
                "reconcile.run activities={} repairs={} anomalies={} stale_outbox_reclaimed={} millis={}",
                sales.size(),
                tally.repairs,
                tally.anomalies,
                reclaimed,
                ms);
        return new Report(skus, tally.repairs, tally.anomalies, reclaimed, ms);
    }

    /** Each SKU of a sale as one unit of a pass: named by its first bucket's slot. */
    private static List<SkuSlot> unitsOf(Activity a) {
        return a.skus().stream().map(sku -> a.slots(sku).get(0)).toList();
    }

    /** A SKU that failed in this run: counted, logged and reported in its line. */
    private SkuReport failed(Activity a, Activity.Sku sku, RuntimeException e) {
        meters.counter("reconcile.sku.failed").increment();
        log.warn(
                "reconcile.sku_failed activity_id={} sku_id={} error_class={}: {}",
                a.activityId(),
                sku.skuId(),
                e.getClass().getName(),
                e.getMessage());
        return new SkuReport(
                a.activityId(),
                sku.skuId(),
                0,
                0,
                0,
                0,
                "FAILED: " + e.getClass().getSimpleName() + ": " + e.getMessage());
    }

    private SkuReport reconcileSku(Activity a, Activity.Sku sku, Duration watermark, boolean full, Tally tally) {
        long activityId = a.activityId();
        long skuId = sku.skuId();
        transferRule.apply(a, sku, watermark, tally);
        ActivityService.InventoryView view = view(activityId, skuId);
        long pgDelta = invariantRule.postgres(view, tally);
        gauge("inventory.pg.invariant.delta", activityId, skuId).set(pgDelta);
        String redisState = "OK";
        if (a.status().warmed() && view.redis().warmedBuckets() < sku.buckets()) {
            redisState = recalibrationRule.recoverLostKeys(a, sku, tally);
            if (!RecalibrationRule.RECALIBRATED.equals(redisState)) {
                return new SkuReport(activityId, skuId, 0, pgDelta, 0, 0, redisState);
            }
            view = view(activityId, skuId);
        } else if (a.status().warmed()) {
            recalibrationRule.resumeStale(a, sku, tally);
        }
        long redisDelta = invariantRule.redis(view, tally);
        gauge("inventory.redis.invariant.delta", activityId, skuId).set(redisDelta);

        int repairsBefore = tally.repairCount();
        long checked = judgeChanged(a, sku, watermark, full, tally);

        DriftRule.Result drift =
                driftRule.check(a, sku, () -> view(activityId, skuId), tally.repairCount() != repairsBefore, tally);
        gauge("inventory.supply.delta", activityId, skuId).set(drift.supply());
        RecalibrationRule.Outcome recalibrated =
                recalibrationRule.recalibrateIfDue(a, sku, drift, () -> view(activityId, skuId), tally);
        if (recalibrated.state() != null) {
            redisState = recalibrated.state();
        }
        gauge("inventory.cross_system.delta", activityId, skuId).set(recalibrated.cross());
        return new SkuReport(
                activityId,
                skuId,
                checked,
                pgDelta,
                drift.view().redis().invariantDelta(),
                recalibrated.cross(),
                redisState);
    }

    /**
     * The reservation rules over the SKU's change windows: reservation rows changed since the cursor, then
     * orders paid or cancelled since theirs; every {@code full-pass-every} (and in a run an operator asks for)
     * every reservation of the SKU from the beginning, orders from the watermark on. Returns the rows judged.
     */
    private long judgeChanged(Activity a, Activity.Sku sku, Duration watermark, boolean full, Tally tally) {
        long activityId = a.activityId();
        String key = activityId + ":" + sku.skuId();
        Window window = full ? null : windows.get(key);
        long now = clock.millis();
        if (window == null || now - window.fullAtMs() > fullPassEvery.toMillis()) {
            window = new Window(
                    Judged.Cursor.START, new Judged.Cursor(repo.windowStart(watermark), Judged.Cursor.START.id()), now);
        }
        long checked = 0;
        Judged.Cursor[] cursors = {window.reservations(), window.orders()};
        for (int kind = 0; kind < 2; kind++) {
            while (true) {
                Judged.Page page = kind == 0
                        ? reservations.changed(activityId, sku.skuId(), cursors[kind], watermark, PAGE)
                        : orders.changed(activityId, sku.skuId(), cursors[kind], watermark, PAGE);
                reservationRules.judge(activityId, sku, page.rows(), tally);
                checked += page.rows().size();
                cursors[kind] = page.next();
                if (page.rows().size() < PAGE) {
                    break;
                }
            }
        }
        windows.put(key, new Window(cursors[0], cursors[1], window.fullAtMs()));
        return checked;
    }

    /** The SKU's inventory view; another SKU's keys are not read, so a broken one elsewhere does not fail it. */
    private ActivityService.InventoryView view(long activityId, long skuId) {
        return activities
                .inventoryView(activityId, skuId)
                .orElseThrow(() -> new IllegalStateException("no inventory for " + activityId + "/" + skuId));
    }

    private Reading gauge(String name, long activityId, long skuId) {
        return gauges.computeIfAbsent(name + "|" + activityId + "|" + skuId, k -> {
            Reading v = new Reading();
            Gauge.builder(name, v, Reading::value)
                    .tag("activity", Long.toString(activityId))
                    .tag("sku", Long.toString(skuId))
                    .register(meters);
            return v;
        });
    }

    /**
     * A gauge's value as of the run that set it, NaN once no run has refreshed it for {@link #staleAfterMs}: the
     * reconciler's own instance refreshes its gauges every interval, while a run an operator asks of another
     * instance (an API pod) sets values nothing there would refresh - read for ever, they would hold an alert up
     * (or down) long after the books changed.
     */
    private final class Reading {
        private volatile long value;
        private volatile long setAtMs = Long.MIN_VALUE;

        void set(long v) {
            value = v;
            setAtMs = clock.millis();
        }

        double value() {
            return setAtMs == Long.MIN_VALUE || clock.millis() - setAtMs > staleAfterMs ? Double.NaN : value;
        }
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
