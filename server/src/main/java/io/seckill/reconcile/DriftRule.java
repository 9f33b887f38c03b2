package io.seckill.reconcile;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.activity.StockAdjustments;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.config.SeckillProperties;
import io.seckill.mq.BrokerBacklog;
import io.seckill.outbox.Outbox;
import io.seckill.state.ObjectKind;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.rocketmq.common.MixAll;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The cross-system equations of a SKU (DESIGN.md §13.4): Redis's {@code committed} against PostgreSQL's, and the
 * supply - the sum of Redis's bucket initials plus units in transit against PostgreSQL's initial. A difference is
 * a drift only when nothing that would close it is in motion: no repair of this run on the SKU, no order event
 * waiting in the outbox or on the broker for the projection, no open reservation but those a person holds. A
 * drift is an anomaly, and it makes a live recalibration due ({@link RecalibrationRule}).
 */
@Component
class DriftRule {

    private static final Logger log = LoggerFactory.getLogger(DriftRule.class);

    /** What the equations say once everything in motion is accounted for. */
    enum Drift {
        NONE,
        /** Redis's committed differs from PostgreSQL's. */
        CROSS_SYSTEM_DELTA,
        /** Redis holds more (or fewer) units over its buckets than PostgreSQL's initial. */
        SUPPLY_DELTA;

        /** The anomaly a drift left after the rule is. */
        AnomalyKind kind() {
            return AnomalyKind.valueOf(name());
        }
    }

    /** The equations after the rule: {@code view} as last read, and the evidence an anomaly carries. */
    record Result(
            Drift drift, long cross, long supply, ActivityService.InventoryView view, Map<String, Object> evidence) {}

    private final Outbox outbox;
    private final StockAdjustments adjustments;
    private final RedisRecalibration recalibration;
    private final BrokerBacklog backlog;
    private final Findings findings;
    private final MeterRegistry meters;
    private final String projectionGroup;
    private final String eventTopic;

    DriftRule(
            Outbox outbox,
            StockAdjustments adjustments,
            RedisRecalibration recalibration,
            BrokerBacklog backlog,
            Findings findings,
            MeterRegistry meters,
            SeckillProperties props) {
        this.outbox = outbox;
        this.adjustments = adjustments;
        this.recalibration = recalibration;
        this.backlog = backlog;
        this.findings = findings;
        this.meters = meters;
        this.projectionGroup = props.mq().projectionGroup();
        this.eventTopic = props.mq().orderEventTopic();
    }

    /**
     * The judgement, in the order of what it costs to know: the deltas (read), this run's repairs (known), the
     * outbox backlog, the open reservations a person holds, the projection's backlog on the broker.
     */
    static Drift judgement(
            long cross,
            long supply,
            boolean repairedThisRun,
            LongSupplier outboxBacklog,
            long openReserved,
            LongSupplier openInReview,
            BooleanSupplier projectionCaughtUp) {
        if ((cross == 0 && supply == 0) || repairedThisRun || outboxBacklog.getAsLong() != 0) {
            return Drift.NONE;
        }
        // reservations a person holds stay open: they do not hide a drift
        if (openReserved != 0 && openReserved != openInReview.getAsLong()) {
            return Drift.NONE;
        }
        if (!projectionCaughtUp.getAsBoolean()) {
            return Drift.NONE;
        }
        return cross != 0 ? Drift.CROSS_SYSTEM_DELTA : Drift.SUPPLY_DELTA;
    }

    Result check(
            Activity a,
            Activity.Sku sku,
            Supplier<ActivityService.InventoryView> read,
            boolean repairedThisRun,
            Tally tally) {
        long activityId = a.activityId();
        ActivityService.InventoryView view = read.get();
        long supply = supplyDelta(activityId, sku, view);
        if (supply != 0) {
            // counters and transfers are read apart: a landing between the reads is seen once, a lost write twice
            view = read.get();
            supply = supplyDelta(activityId, sku, view);
        }
        long cross = view.crossSystemDelta();
        long open = view.redis().openReserved();
        Drift drift = judgement(
                cross,
                supply,
                repairedThisRun,
                () -> outbox.skuBacklog(activityId, sku.skuId()),
                open,
                () -> recalibration.openInReview(a, sku),
                this::projectionCaughtUp);
        Map<String, Object> evidence = Map.of(
                "redis", view.redis().toString(), "pg", view.pg().toString(), "delta", cross, "supply_delta", supply);
        if (drift != Drift.NONE) {
            String key = activityId + ":" + sku.skuId();
            findings.anomaly(tally, drift.kind(), ObjectKind.SKU, key, activityId, sku.skuId(), evidence);
        }
        return new Result(drift, cross, supply, view, evidence);
    }

    /** The supply equation's delta, or 0 while a stock adjustment's Redis half is not applied (it is off by design). */
    long supplyDelta(long activityId, Activity.Sku sku, ActivityService.InventoryView view) {
        if (view.redis().warmedBuckets() == 0 || view.supplyDelta() == 0) {
            return 0;
        }
        return adjustments.unapplied(activityId, sku.skuId()) > 0 ? 0 : view.supplyDelta();
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
}
