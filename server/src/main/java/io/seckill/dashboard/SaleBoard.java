package io.seckill.dashboard;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.activity.SaleRegistry;
import io.seckill.anomaly.Anomalies;
import io.seckill.invariants.InvariantChecker;
import io.seckill.order.Orders;
import io.seckill.reconcile.Repairs;
import io.seckill.reservation.Reservations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
        Reservations reservations,
        Orders orders,
        Anomalies anomalies,
        Repairs repairs,
        InvariantChecker invariants,
        FleetMeters fleet,
        Clock clock,
        Map<Long, Checked> checked) {

    static final long INVARIANTS_EVERY_MS = 10_000;

    /** The invariants' last result of one sale, and when it was taken. */
    record Checked(long atMs, InvariantsView result) {}

    /** The dashboard's one read: the live sales, the fleet's pipeline, counters and rates, the last hour's repairs. */
    public record Board(
            String at,
            List<SaleView> sales,
            Map<String, Double> pipeline,
            Map<String, Object> counters,
            Map<String, Double> totals,
            Map<String, Double> rates,
            FleetView fleet,
            Map<String, Long> repairsLastHour) {}

    /** Where the fleet's figures come from and the instances heard from. */
    public record FleetView(String source, List<InstanceView> instances) {}

    public record InstanceView(String instance, String roles, long ageMs) {}

    /** One live sale: its SKUs, its reservations and orders by state, open anomalies, the invariants' last result. */
    public record SaleView(
            long activityId,
            String status,
            List<SkuView> skus,
            Map<String, Long> reservations,
            Map<String, Long> orders,
            Map<String, Long> openAnomalies,
            InvariantsView invariants) {}

    /** One SKU: PostgreSQL beside Redis; a SKU over several buckets also bucket by bucket. */
    public record SkuView(
            long skuId,
            int buckets,
            ActivityService.PgCounts pg,
            ActivityService.RedisNumbers redis,
            long crossSystemDelta,
            @JsonInclude(JsonInclude.Include.NON_NULL) List<ActivityService.BucketCounters> redisBuckets) {}

    /** The invariants' last result: whether all passed, the failing ones, and when. */
    public record InvariantsView(boolean pass, List<String> failing, String checkedAt) {}

    @Autowired
    SaleBoard(
            SaleRegistry registry,
            ActivityService activities,
            Reservations reservations,
            Orders orders,
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

    public Board state() {
        List<SaleView> sales = registry.live().stream().map(this::sale).toList();
        FleetMeters.Fleet f = fleet.fleet();
        return new Board(
                clock.instant().toString(),
                sales,
                f.pipeline(),
                f.counters(),
                f.totals(),
                f.rates(),
                new FleetView(
                        f.source(),
                        f.instances().stream()
                                .map(m -> new InstanceView(m.instance(), m.roles(), m.ageMs()))
                                .toList()),
                repairs.recent(Duration.ofHours(1)));
    }

    private SaleView sale(Activity a) {
        List<SkuView> skus = new ArrayList<>();
        for (ActivityService.InventoryView v : activities.inventoryView(a.activityId())) {
            skus.add(new SkuView(
                    v.pg().skuId(),
                    v.pg().buckets(),
                    ActivityService.PgCounts.of(v.pg()),
                    ActivityService.RedisNumbers.of(v.redis()),
                    v.crossSystemDelta(),
                    // a hot SKU over several slots: where its units are, bucket by bucket
                    v.pg().buckets() > 1 ? activities.bucketCounters(v.pg()) : null));
        }
        return new SaleView(
                a.activityId(),
                a.status().name(),
                skus,
                reservations.countByStatus(a.activityId()),
                orders.countByStatus(a.activityId()),
                anomalies.openByType(a.activityId()),
                invariants(a.activityId()));
    }

    private InvariantsView invariants(long activityId) {
        long now = clock.millis();
        Checked last = checked.get(activityId);
        if (last == null || now - last.atMs() > INVARIANTS_EVERY_MS) {
            List<InvariantChecker.Check> checks = invariants.check(activityId, false);
            last = new Checked(
                    now,
                    new InvariantsView(
                            checks.stream().allMatch(InvariantChecker.Check::pass),
                            checks.stream()
                                    .filter(c -> !c.pass())
                                    .map(c -> c.name() + ": " + c.detail())
                                    .toList(),
                            Instant.ofEpochMilli(now).toString()));
            checked.put(activityId, last);
        }
        return last.result();
    }
}
