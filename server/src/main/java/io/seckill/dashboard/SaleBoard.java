package io.seckill.dashboard;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.activity.SaleRegistry;
import io.seckill.anomaly.AnomalyRepository;
import io.seckill.invariants.InvariantChecker;
import io.seckill.order.OrderRepository;
import io.seckill.reconcile.RepairRepository;
import io.seckill.reservation.ReservationRepository;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Service;

/**
 * What the live dashboard shows, in one read: per sale and SKU, Redis beside PostgreSQL; the sale's
 * reservations and orders by state; the pipeline's lags and the entry breaker (this instance's
 * gauges); the counters the page turns into rates; open anomalies; repair tasks of the last hour;
 * the invariants' last result (checked at most every {@link #INVARIANTS_EVERY_MS} ms per sale).
 */
@Service
public record SaleBoard(
        SaleRegistry registry,
        ActivityService activities,
        ReservationRepository reservations,
        OrderRepository orders,
        AnomalyRepository anomalies,
        RepairRepository repairs,
        InvariantChecker invariants,
        MeterRegistry meters,
        Clock clock,
        Map<Long, Checked> checked) {

    static final long INVARIANTS_EVERY_MS = 10_000;

    /** The pipeline gauges the page shows, by the name it shows them under. */
    private static final Map<String, String> LAGS = orderedMap(
            "send_pending",
            "reservation.send.pending",
            "send_oldest_age_seconds",
            "reservation.send.oldest.age.seconds",
            "order_backlog_age_seconds",
            "mq.order.backlog.age.seconds",
            "outbox_pending",
            "outbox.pending",
            "outbox_oldest_age_seconds",
            "outbox.oldest.age.seconds",
            "compensation_pending",
            "compensation.pending",
            "cancel_pending",
            "order.cancel.backlog",
            "admission_paused",
            "admission.paused");

    /** The invariants' last result of one sale, and when it was taken. */
    record Checked(long atMs, Map<String, Object> result) {}

    @Autowired
    SaleBoard(
            SaleRegistry registry,
            ActivityService activities,
            ReservationRepository reservations,
            OrderRepository orders,
            AnomalyRepository anomalies,
            RepairRepository repairs,
            InvariantChecker invariants,
            MeterRegistry meters,
            Clock clock) {
        this(
                registry,
                activities,
                reservations,
                orders,
                anomalies,
                repairs,
                invariants,
                meters,
                clock,
                new ConcurrentHashMap<>());
    }

    public Map<String, Object> state() {
        List<Map<String, Object>> sales = new ArrayList<>();
        for (Activity a : registry.live()) {
            sales.add(sale(a));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("at", clock.instant().toString());
        out.put("sales", sales);
        Map<String, Double> lags = new LinkedHashMap<>();
        LAGS.forEach((shown, metric) -> lags.put(shown, gauge(metric)));
        out.put("pipeline", lags);
        Map<String, Object> counters = new LinkedHashMap<>();
        counters.put("admitted", count("reservation.admitted", null));
        counters.put("consumed", count("order.consume", "result"));
        counters.put("payments", count("payment.apply", "result"));
        counters.put("cancels", count("order.cancel", "result"));
        counters.put("refused", count("reservation.refused", "reason"));
        out.put("counters", counters);
        out.put("repairs_last_hour", repairs.recent(Duration.ofHours(1)));
        return out;
    }

    private Map<String, Object> sale(Activity a) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("activity_id", a.activityId());
        s.put("status", a.status().name());
        List<Map<String, Object>> skus = new ArrayList<>();
        for (ActivityService.InventoryView v : activities.inventoryView(a.activityId())) {
            Map<String, Object> k = new LinkedHashMap<>();
            k.put("sku_id", v.pg().skuId());
            k.put("buckets", v.pg().buckets());
            k.put(
                    "pg",
                    orderedMap(
                            "initial",
                            v.pg().initial(),
                            "available",
                            v.pg().available(),
                            "occupied",
                            v.pg().occupied(),
                            "sold",
                            v.pg().sold()));
            k.put(
                    "redis",
                    orderedMap(
                            "initial",
                            v.redis().initial(),
                            "stock",
                            v.redis().stock(),
                            "open_reserved",
                            v.redis().openReserved(),
                            "committed",
                            v.redis().committed()));
            k.put("cross_system_delta", v.crossSystemDelta());
            if (v.pg().buckets() > 1) {
                // a hot SKU over several slots: where its units are, bucket by bucket
                k.put(
                        "redis_buckets",
                        activities.bucketCounters(v.pg()).stream()
                                .map(b -> orderedMap(
                                        "bucket",
                                        b.bucket(),
                                        "initial",
                                        b.initial(),
                                        "stock",
                                        b.stock(),
                                        "open_reserved",
                                        b.openReserved(),
                                        "committed",
                                        b.committed()))
                                .toList());
            }
            skus.add(k);
        }
        s.put("skus", skus);
        s.put("reservations", reservations.countByStatus(a.activityId()));
        s.put("orders", orders.countByStatus(a.activityId()));
        s.put("open_anomalies", anomalies.openByType(a.activityId()));
        s.put("invariants", invariants(a.activityId()));
        return s;
    }

    private Map<String, Object> invariants(long activityId) {
        long now = clock.millis();
        Checked last = checked.get(activityId);
        if (last == null || now - last.atMs() > INVARIANTS_EVERY_MS) {
            List<InvariantChecker.Check> checks = invariants.check(activityId, false);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("pass", checks.stream().allMatch(InvariantChecker.Check::pass));
            r.put(
                    "failing",
                    checks.stream()
                            .filter(c -> !c.pass())
                            .map(c -> c.name() + ": " + c.detail())
                            .toList());
            r.put("checked_at", Instant.ofEpochMilli(now).toString());
            last = new Checked(now, r);
            checked.put(activityId, last);
        }
        return last.result();
    }

    private double gauge(String name) {
        return meters.find(name).gauges().stream()
                .mapToDouble(Gauge::value)
                .filter(v -> !Double.isNaN(v))
                .sum();
    }

    /** A counter's total, or its totals by one tag. */
    private Object count(String name, String tag) {
        if (tag == null) {
            return meters.find(name).counters().stream()
                    .mapToDouble(Counter::count)
                    .sum();
        }
        Map<String, Double> by = new TreeMap<>();
        for (Counter c : meters.find(name).counters()) {
            by.merge(String.valueOf(c.getId().getTag(tag)), c.count(), Double::sum);
        }
        return by;
    }

    @SuppressWarnings("unchecked")
    private static <V> Map<String, V> orderedMap(Object... kv) {
        Map<String, V> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (V) kv[i + 1]);
        }
        return m;
    }
}
