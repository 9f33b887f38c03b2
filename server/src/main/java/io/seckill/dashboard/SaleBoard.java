package io.seckill.dashboard;

import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.activity.SaleRegistry;
import io.seckill.anomaly.Anomalies;
import io.seckill.invariants.InvariantChecker;
import io.seckill.order.OrderRepository;
import io.seckill.reconcile.Repairs;
import io.seckill.reservation.ReservationRepository;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Service;

/**
 * What the live dashboard shows, in one read: per sale and SKU, Redis beside PostgreSQL; the sale's
 * reservations and orders by state; the pipeline's lags, the entry breakers and the counters the page turns
 * into rates, summed over the fleet ({@link FleetMeters}); open anomalies; repair tasks of the last hour;
 * the invariants' last result (checked at most every {@link #INVARIANTS_EVERY_MS} ms per sale).
 */
@Service
public record SaleBoard(
        SaleRegistry registry,
        ActivityService activities,
        ReservationRepository reservations,
        OrderRepository orders,
        Anomalies anomalies,
        Repairs repairs,
        InvariantChecker invariants,
        FleetMeters fleet,
        Clock clock,
        Map<Long, Checked> checked) {

    static final long INVARIANTS_EVERY_MS = 10_000;

    /** The invariants' last result of one sale, and when it was taken. */
    record Checked(long atMs, Map<String, Object> result) {}

    @Autowired
    SaleBoard(
            SaleRegistry registry,
            ActivityService activities,
            ReservationRepository reservations,
            OrderRepository orders,
            Anomalies anomalies,
            Repairs repairs,
            InvariantChecker invariants,
            FleetMeters fleet,
            Clock clock) {
        this(
                registry,
                activities,
                reservations,
                orders,
                anomalies,
                repairs,
                invariants,
                fleet,
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
        FleetMeters.Fleet f = fleet.fleet();
        out.put("pipeline", f.pipeline());
        out.put("counters", f.counters());
        out.put("totals", f.totals());
        out.put("rates", f.rates());
        out.put(
                "fleet",
                orderedMap(
                        "source",
                        f.source(),
                        "instances",
                        f.instances().stream()
                                .map(m -> orderedMap("instance", m.instance(), "roles", m.roles(), "age_ms", m.ageMs()))
                                .toList()));
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

    @SuppressWarnings("unchecked")
    private static <V> Map<String, V> orderedMap(Object... kv) {
        Map<String, V> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (V) kv[i + 1]);
        }
        return m;
    }
}
