package io.seckill.dashboard;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.json.Json;
import io.seckill.metrics.LogThrottle;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

/**
 * The dashboard's pipeline gauges and counters for the whole fleet. Roles run in different pods, and each pod's
 * meters hold only what its roles do: an API pod counts admissions and never an order. So every instance, whatever
 * its roles, writes its own figures to PostgreSQL every {@code seckill.dashboard.fleet-interval} (one row each,
 * {@code instance_meters}), and the dashboard - on whichever instance serves it - adds up the rows written within
 * three intervals. Rates are each instance's own (its totals over the last {@link #RATE_WINDOW} of its readings),
 * summed: a restarted instance starts from 0, and a departed one drops out of the sum.
 * When PostgreSQL cannot be read the page gets this instance's own figures, marked as such.
 */
@Component
class FleetMeters implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(FleetMeters.class);
    private static final AtomicInteger IN_PROCESS = new AtomicInteger();

    /** The pipeline gauges the page shows, by the name it shows them under. */
    static final Map<String, String> LAGS = ordered(
            "send_pending", "reservation.send.pending",
            "send_oldest_age_seconds", "reservation.send.oldest.age.seconds",
            "order_backlog_age_seconds", "mq.order.backlog.age.seconds",
            "outbox_pending", "outbox.pending",
            "outbox_oldest_age_seconds", "outbox.oldest.age.seconds",
            "compensation_pending", "compensation.pending",
            "cancel_pending", "order.cancel.backlog",
            "admission_paused", "admission.paused");

    /** The counters the page turns into rates: shown name -> (meter, the tag it is split by or null). */
    static final Map<String, String[]> COUNTERS = Map.of(
            "admitted", new String[] {"reservation.admitted", null},
            "consumed", new String[] {"order.consume", "result"},
            "payments", new String[] {"payment.apply", "result"},
            "cancels", new String[] {"order.cancel", "result"},
            "refused", new String[] {"reservation.refused", "reason"});

    /** One instance as the fleet sees it. */
    record Member(String instance, String roles, long ageMs) {}

    /**
     * The fleet's figures: the live instances, their gauges and counters summed, and where they come from
     * ({@code fleet}, or {@code this instance} with why).
     */
    record Fleet(
            List<Member> instances,
            Map<String, Double> pipeline,
            Map<String, Object> counters,
            Map<String, Double> totals,
            Map<String, Double> rates,
            String source) {}

    /** How far back an instance's rates look: a few of its writes, so one late write does not show as a dip. */
    static final Duration RATE_WINDOW = Duration.ofSeconds(10);

    private final FleetRepository rows;
    private final MeterRegistry meters;
    private final Duration interval;
    private final String instance;
    private final String roles;
    private final LongSupplier nanoTime;
    private final Counter publishErrors;
    private final Counter readErrors;
    private final LogThrottle logThrottle = new LogThrottle(Duration.ofMinutes(1));
    private volatile ScheduledExecutorService timer;
    private int publishes;

    @Autowired
    FleetMeters(
            FleetRepository rows,
            MeterRegistry meters,
            SeckillProperties props,
            @Value("${seckill.dashboard.fleet-interval:2s}") Duration interval) {
        this(rows, meters, String.join(",", new TreeSet<>(props.roles())), interval, System::nanoTime);
    }

    /** {@code nanoTime}: the monotonic clock the rates are measured on. */
    FleetMeters(FleetRepository rows, MeterRegistry meters, String roles, Duration interval, LongSupplier nanoTime) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("seckill.dashboard.fleet-interval must be positive, was " + interval);
        }
        this.rows = rows;
        this.meters = meters;
        this.interval = interval;
        this.instance =
                host() + "-" + ManagementFactory.getRuntimeMXBean().getPid() + "-" + IN_PROCESS.incrementAndGet();
        this.roles = roles;
        this.nanoTime = nanoTime;
        this.publishErrors = Counter.builder("dashboard.fleet.errors")
                .tag("op", "publish")
                .description("The instance's dashboard figures could not be written to PostgreSQL")
                .register(meters);
        this.readErrors = Counter.builder("dashboard.fleet.errors")
                .tag("op", "read")
                .description("The fleet's dashboard figures could not be read: the page showed this instance's")
                .register(meters);
    }

    /** The fleet's figures, summed over the instances that wrote within three intervals. */
    Fleet fleet() {
        List<FleetRepository.Row> live;
        try {
            live = rows.live(interval.multipliedBy(3));
        } catch (DataAccessException e) {
            readErrors.increment();
            Snapshot own = local();
            return new Fleet(
                    List.of(new Member(instance, roles, 0)),
                    own.pipeline(),
                    own.counters(),
                    own.totals(),
                    own.rates(),
                    "this instance (the fleet's figures cannot be read: "
                            + e.getMostSpecificCause().getMessage() + ")");
        }
        Map<String, Object> pipeline = new LinkedHashMap<>();
        Map<String, Object> counters = new LinkedHashMap<>();
        Map<String, Object> totals = new LinkedHashMap<>();
        Map<String, Object> rates = new LinkedHashMap<>();
        List<Member> members = new ArrayList<>();
        for (FleetRepository.Row r : live) {
            Snapshot s = Snapshot.parse(r.snapshot());
            add(pipeline, s.pipeline());
            add(counters, s.counters());
            add(totals, s.totals());
            add(rates, s.rates());
            members.add(new Member(r.instance(), r.roles(), r.ageMs()));
        }
        Map<String, Object> summed = new LinkedHashMap<>();
        for (String k : COUNTERS.keySet()) {
            summed.put(k, counters.getOrDefault(k, COUNTERS.get(k)[1] == null ? 0.0 : Map.of()));
        }
        return new Fleet(
                members,
                shown(LAGS.keySet(), pipeline),
                summed,
                shown(SHOWN.keySet(), totals),
                shown(SHOWN.keySet(), rates),
                "fleet");
    }

    /** {@code names} in their order, each read from {@code sums} (0 when no instance had it). */
    private static Map<String, Double> shown(Iterable<String> names, Map<String, Object> sums) {
        Map<String, Double> out = new LinkedHashMap<>();
        names.forEach(k -> out.put(k, ((Number) sums.getOrDefault(k, 0.0)).doubleValue()));
        return out;
    }

    /**
     * This instance's figures: its gauges (NaN read as absent), its counters, their totals as the page names them,
     * and each total's rate per second over the last {@link #RATE_WINDOW} of this instance's own readings.
     */
    synchronized Snapshot local() {
        Map<String, Double> lags = new LinkedHashMap<>();
        LAGS.forEach((shown, metric) -> lags.put(shown, gauge(metric)));
        Map<String, Object> counters = new LinkedHashMap<>();
        COUNTERS.forEach((shown, meter) -> counters.put(shown, count(meter[0], meter[1])));
        Map<String, Double> totals = totals(counters);
        long now = nanoTime.getAsLong();
        readings.addLast(new Reading(now, totals));
        while (readings.size() > 2 && now - readings.get(1).nanos() >= RATE_WINDOW.toNanos()) {
            readings.removeFirst();
        }
        Reading oldest = readings.getFirst();
        double seconds = (now - oldest.nanos()) / 1e9;
        Map<String, Double> rates = new LinkedHashMap<>();
        totals.forEach((k, v) -> rates.put(
                k, seconds <= 0 ? 0.0 : Math.max(0, (v - oldest.totals().get(k)) / seconds)));
        return new Snapshot(lags, counters, totals, rates);
    }

    /** One reading of this instance's totals, on the monotonic clock. */
    private record Reading(long nanos, Map<String, Double> totals) {}

    private final LinkedList<Reading> readings = new LinkedList<>();

    /** What the page shows of the counters, by the name it shows them under. */
    static final Map<String, String> SHOWN = ordered(
            "admitted", "admitted",
            "orders created", "consumed:created",
            "rejected: sold out", "consumed:rejected_sold_out",
            "rejected: one per user", "consumed:rejected_duplicate_user",
            "rejected: late", "consumed:late_rejected",
            "paid", "payments:paid",
            "cancelled", "cancels:cancelled",
            "refused at the entry", "refused:*");

    /** The shown totals of {@code counters}: a counter, one tag's value of it, or all its tags ({@code *}). */
    static Map<String, Double> totals(Map<String, Object> counters) {
        Map<String, Double> out = new LinkedHashMap<>();
        SHOWN.forEach((shown, source) -> {
            String[] parts = source.split(":");
            Object c = counters.get(parts[0]);
            double v;
            if (parts.length == 1) {
                v = c instanceof Number n ? n.doubleValue() : 0;
            } else if (!(c instanceof Map<?, ?> byTag)) {
                v = 0;
            } else if (parts[1].equals("*")) {
                v = byTag.values().stream()
                        .mapToDouble(x -> ((Number) x).doubleValue())
                        .sum();
            } else {
                v = byTag.get(parts[1]) instanceof Number n ? n.doubleValue() : 0;
            }
            out.put(shown, v);
        });
        return out;
    }

    /** The figures one instance writes. */
    record Snapshot(
            Map<String, Double> pipeline,
            Map<String, Object> counters,
            Map<String, Double> totals,
            Map<String, Double> rates) {

        String json() {
            return Json.text(Map.of("pipeline", pipeline, "counters", counters, "totals", totals, "rates", rates));
        }

        @SuppressWarnings("unchecked")
        static Snapshot parse(String json) {
            Map<String, Object> m = Json.read(json.getBytes(StandardCharsets.UTF_8), Map.class);
            Map<String, Double> pipeline = numbers((Map<String, Object>) m.getOrDefault("pipeline", Map.of()));
            return new Snapshot(
                    pipeline,
                    (Map<String, Object>) m.getOrDefault("counters", Map.of()),
                    numbers((Map<String, Object>) m.getOrDefault("totals", Map.of())),
                    numbers((Map<String, Object>) m.getOrDefault("rates", Map.of())));
        }

        private static Map<String, Double> numbers(Map<String, Object> m) {
            Map<String, Double> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put(k, ((Number) v).doubleValue()));
            return out;
        }
    }

    void publish() {
        rows.publish(instance, roles, local().json());
        if (publishes++ % 100 == 0) {
            rows.prune(Duration.ofHours(1));
        }
    }

    private void publishOrCount() {
        try {
            publish();
        } catch (RuntimeException e) {
            publishErrors.increment();
            long suppressed = logThrottle.tryAcquire();
            if (suppressed >= 0) {
                log.warn("dashboard figures not written ({} more since the last line): {}", suppressed, e.toString());
            }
        }
    }

    /** Numbers add up; maps merge key by key. */
    @SuppressWarnings("unchecked")
    static void add(Map<String, Object> into, Map<String, ?> from) {
        from.forEach((k, v) -> {
            if (v instanceof Number n) {
                double d = Double.isNaN(n.doubleValue()) ? 0 : n.doubleValue();
                into.merge(k, d, (a, b) -> ((Number) a).doubleValue() + ((Number) b).doubleValue());
            } else if (v instanceof Map<?, ?> m) {
                Map<String, Object> sub = (Map<String, Object>) into.computeIfAbsent(k, x -> new TreeMap<>());
                add(sub, (Map<String, ?>) m);
            }
        });
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

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }

    private static Map<String, String> ordered(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Override
    public void start() {
        ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread th = new Thread(r, "fleet-meters");
            th.setDaemon(true);
            return th;
        });
        t.scheduleWithFixedDelay(this::publishOrCount, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        timer = t;
    }

    @Override
    public void stop() {
        ScheduledExecutorService t = timer;
        timer = null;
        if (t != null) {
            t.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return timer != null;
    }
}
