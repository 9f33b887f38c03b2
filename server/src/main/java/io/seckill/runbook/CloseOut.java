package io.seckill.runbook;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.lettuce.core.ExpireArgs;
import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.activity.SaleRegistry;
import io.seckill.activity.Stock;
import io.seckill.anomaly.Anomalies;
import io.seckill.compensation.CompensationTasks;
import io.seckill.hold.ManualHolds;
import io.seckill.invariants.InvariantChecker;
import io.seckill.order.Orders;
import io.seckill.outbox.Outbox;
import io.seckill.payment.Payments;
import io.seckill.reconcile.Reconciler;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.refusal.Refusal;
import io.seckill.reservation.Reservations;
import io.seckill.state.ObjectKind;
import io.seckill.state.SaleStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/** Ends a sale: stops admission, drains, reconciles a last time, reports, and lets the sale's Redis keys expire. */
@Service
public record CloseOut(
        SaleRegistry registry,
        ActivityService activities,
        Reconciler reconciler,
        InvariantChecker invariants,
        Orders orders,
        Reservations reservations,
        Stock stock,
        Payments payments,
        Anomalies anomalies,
        Outbox outbox,
        CompensationTasks tasks,
        ManualHolds holds,
        Redis redis,
        /** {@code seckill.close-out.retention}: how long a closed-out sale's Redis keys stay (inspection, late polls). */
        @Value("${seckill.close-out.retention:7d}") Duration retention) {

    public CloseOut {
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("seckill.close-out.retention: must be positive, got " + retention);
        }
    }

    /**
     * What a close-out found: whether the sale drained (and what is still moving when not), its books by state, one
     * inventory line per SKU, the last reconciliation, the invariants (or why they could not be checked), and how many
     * Redis keys were given an expiry (only once drained). A SKU whose inventory cannot be read is named in
     * {@code inventoryUnreadable} instead of {@code inventory}.
     */
    public record Closed(
            long activityId,
            boolean drained,
            Map<String, Object> stillInFlight,
            Map<String, Long> orders,
            Map<String, Long> reservations,
            Map<String, Long> ledger,
            Map<String, Long> payments,
            Map<String, Long> openAnomalies,
            List<ActivityService.InventoryRow> inventory,
            @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> inventoryUnreadable,
            Reconciler.Report finalReconcile,
            boolean invariantsPass,
            @JsonInclude(JsonInclude.Include.NON_NULL) List<InvariantChecker.Check> invariants,
            @JsonInclude(JsonInclude.Include.NON_NULL) String invariantsNotChecked,
            @JsonInclude(JsonInclude.Include.NON_NULL) Long redisKeysExpiring) {}

    public Closed closeOut(long activityId, String operator, String reason, Duration drainTimeout)
            throws InterruptedException {
        Lookup.requireReason(reason);
        Activity a = registry.load(activityId)
                .orElseThrow(() -> Refusal.notFound("ACTIVITY_NOT_FOUND", "no activity " + activityId));
        if (a.status() == SaleStatus.OPEN) {
            activities.close(activityId);
        }
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        Map<String, Object> pending;
        while (true) {
            pending = inFlight(a);
            if (pending.isEmpty() || System.nanoTime() > deadline) {
                break;
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        Reconciler.Report rec = reconciler.run(activityId, Duration.ofMillis(1));
        List<InvariantChecker.Check> checks = null;
        String notChecked = null;
        try {
            checks = invariants.check(activityId, pending.isEmpty());
        } catch (RuntimeException e) {
            // a SKU whose counters cannot be read (its master does not answer): the report says so, the sale stays open
            // for a later close-out
            notChecked = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        Long expiring = null;
        if (pending.isEmpty()) {
            expiring = expireKeys(registry.load(activityId).orElseThrow());
            activities.closedOut(activityId);
            reconciler.forget(activityId);
        }
        List<ActivityService.InventoryRow> rows = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        for (Activity.Sku sku : a.skus()) {
            try {
                activities
                        .inventoryView(activityId, sku.skuId())
                        .map(ActivityService.InventoryRow::of)
                        .ifPresentOrElse(rows::add, () -> unreadable.add("sku " + sku.skuId() + ": no inventory row"));
            } catch (RuntimeException e) {
                unreadable.add(
                        "sku " + sku.skuId() + ": unreadable: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        Closed report = new Closed(
                activityId,
                pending.isEmpty(),
                pending,
                orders.countByStatus(activityId),
                reservations.countByStatus(activityId),
                stock.ledgerCountByType(activityId),
                payments.paymentCounts(activityId),
                anomalies.openByType(activityId),
                rows,
                unreadable,
                rec,
                checks != null && checks.stream().allMatch(InvariantChecker.Check::pass),
                checks,
                notChecked,
                expiring);
        holds.audit(
                operator,
                "CLOSE_OUT",
                ObjectKind.ACTIVITY,
                Long.toString(activityId),
                Map.of("status", a.status()),
                Map.of("drained", pending.isEmpty()),
                Map.of("orders", report.orders()),
                reason);
        return report;
    }

    /**
     * What is still moving for the sale: open reservations in Redis, unsent events, unapplied compensation. A SKU
     * whose counters cannot be read (a master that does not answer) is named as not known to be still - the others
     * are judged all the same, and the sale is not closed out while one cannot be.
     */
    private Map<String, Object> inFlight(Activity a) {
        long activityId = a.activityId();
        Map<String, Object> pending = new LinkedHashMap<>();
        for (Activity.Sku sku : a.skus()) {
            try {
                activities.inventoryView(activityId, sku.skuId()).ifPresent(v -> {
                    if (v.redis().openReserved() != 0) {
                        pending.put(
                                "sku " + sku.skuId() + " open reservations",
                                v.redis().openReserved());
                    }
                });
            } catch (RuntimeException e) {
                pending.put("sku " + sku.skuId() + " unreadable", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        long unsent = outbox.saleBacklog(activityId);
        if (unsent > 0) {
            pending.put("unsent events", unsent);
        }
        long unsettled = tasks.unsettled(activityId);
        if (unsettled > 0) {
            pending.put("compensation tasks not applied", unsettled);
        }
        return pending;
    }

    /**
     * Every Redis key the sale wrote - counters, indexes, reservation hashes, request maps, user marks, markers, in
     * every bucket - expires {@code seckill.close-out.retention} (7 days) after close-out, or once the sale's last order can no longer move
     * (its business deadline and payment timeout after it ended) when that is later; a key that expires sooner
     * keeps its own expiry. Nothing a sale wrote outlives it: a season of sales leaves Redis where it began. The
     * keys are found with one SCAN of the sale's hash-tag prefix (on a cluster, on each master serving slots); how many were
     * given an expiry is returned.
     */
    private long expireKeys(Activity a) {
        long ttlMs = Math.max(
                retention.toMillis(),
                Duration.ofSeconds((long) a.businessDeadlineSeconds() + a.paymentTimeoutSeconds())
                        .toMillis());
        long[] expiring = {0};
        redis.nodes().scan(SkuSlot.salePattern(a.activityId()), key -> {
            if (redis.sync().pexpire(key, ttlMs, ExpireArgs.Builder.lt())) {
                expiring[0]++;
            }
        });
        return expiring[0];
    }
}
