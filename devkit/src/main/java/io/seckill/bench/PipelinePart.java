package io.seckill.bench;

import io.seckill.activity.ActivityService;
import io.seckill.config.SeckillProperties;
import io.seckill.engines.EmbeddedEngines;
import io.seckill.entry.AdmissionEntry;
import io.seckill.redis.Redis;
import io.seckill.reservation.AdmissionBreaker;
import io.seckill.reservation.OrderPace;
import io.seckill.reservation.Reservations;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The bench's pipeline part: admission with the send path and the order consumer behind it, sustained and then
 * paced to the consumers, and the fault drill against the engine and the naive baseline.
 */
final class PipelinePart {

    private final BenchCommand bench;

    private final int concurrency;

    private final int warmup;

    private final int pipelineSeconds;

    private final Path charts;

    private final String userSecret;

    PipelinePart(BenchCommand bench) {
        this.bench = bench;
        this.concurrency = bench.concurrency;
        this.warmup = bench.warmup;
        this.pipelineSeconds = bench.pipelineSeconds;
        this.charts = bench.charts;
        this.userSecret = bench.userSecret;
    }

    /** The fault drill's lines for the summary. */
    List<String> drillReport() {
        return drillReport;
    }

    /** A sustained run through the whole pipeline: admission, send path, order consumer. */
    record PipelineResult(Sustained unpaced, Sustained paced, Duration waitTarget, Duration maxOrderBacklogAge) {

        long orders() {
            return unpaced.orders() + paced.orders();
        }

        /**
         * The pipeline's lines of the summary; its machine CPU against {@code evalshaMicros} + {@code minimalMicros}
         * (the admission and consumer parts' costs of the same run, NaN when they did not run).
         */
        void print(PrintStream out, double evalshaMicros, double minimalMicros) {
            out.printf(
                    "pipeline, %d s sustained (admission entry, send path, order consumer in one process):%n",
                    unpaced.seconds());
            unpaced.print(out);
            out.printf(
                    "  send path: breaker paused %d times, oldest unsent max %.1f s   (goal no pause, <= 1 s: %s)%n",
                    unpaced.sendTrips(),
                    unpaced.oldestUnsentSeconds(),
                    BenchCommand.met(unpaced.sendTrips() == 0 && unpaced.oldestUnsentSeconds() <= 1.0));
            out.printf(
                    "  order backlog: the entry paused %d times for consumers more than %s behind%s%n",
                    unpaced.backlogTrips(),
                    maxOrderBacklogAge.isZero() ? "(off)" : maxOrderBacklogAge.toSeconds() + " s",
                    unpaced.backlogTrips() == 0 ? "" : " (its 503s are the non-202 statuses above)");
            out.println(BenchCommand.pipelineCost(unpaced.machineMicrosPerAdmitted(), evalshaMicros, minimalMicros));
            out.printf(
                    "pipeline, %d s paced to the order consumers (seckill.admission.order-wait-target=%s):%n",
                    paced.seconds(), waitTarget);
            paced.print(out);
            out.printf(
                    "  the pace turned %,d buyers away (429); the entry paused %d times%n",
                    paced.turnedAway(), paced.sendTrips() + paced.backlogTrips());
        }
    }

    /** One sustained wrk run through the pipeline: its answers and the QUEUED -> ORDER_CREATED times of what it admitted. */
    record Sustained(
            int seconds,
            double admittedPerSecond,
            Map<Integer, Long> statuses,
            long orders,
            long undecided,
            Histogram queuedToOrder,
            long sendTrips,
            double oldestUnsentSeconds,
            long backlogTrips,
            long turnedAway,
            double machineMicrosPerAdmitted) {

        void print(PrintStream out) {
            double p99 = queuedToOrder.getValueAtPercentile(99) / 1e6;
            out.printf(
                    "  admitted %,.0f reservations/s, statuses %s; %,d orders created, %,d reservations undecided%n",
                    admittedPerSecond, statuses, orders, undecided);
            out.printf(
                    "  QUEUED -> ORDER_CREATED p50 %.3f s, p99 %.3f s, max %.3f s   (goal p99 <= 1 s: %s)%n",
                    queuedToOrder.getValueAtPercentile(50) / 1e6,
                    p99,
                    queuedToOrder.getMaxValue() / 1e6,
                    BenchCommand.met(p99 <= 1.0));
        }
    }

    /** The pipeline's paced run: orders at most about this long after their answer. */
    private static final Duration PACED_WAIT_TARGET = Duration.ofSeconds(1);

    /**
     * Admission with the whole pipeline behind it in the same process (api, send path, order consumer)
     * for {@link #pipelineSeconds}, then half as long again with the entry paced to the order consumers
     * ({@link #PACED_WAIT_TARGET}): every reservation admitted in a measured window is timed from QUEUED
     * (its reserved_at, Redis's clock) to ORDER_CREATED (the order row's created_at) in PostgreSQL.
     */
    PipelineResult pipeline(EmbeddedEngines engines) throws Exception {
        Map<String, Object> p = bench.webProperties(engines);
        // the roles that bring a reservation to its end: the drill's invariants need the order events projected too
        p.put("seckill.roles", "api,send-due-scanner,order-consumer,compensation,outbox-relay,projection");
        String stamp = Long.toString(System.currentTimeMillis());
        p.put("seckill.mq.order-request-topic", "BENCH_PIPELINE_" + stamp);
        p.put("seckill.mq.order-consumer-group", "bench-pipeline-" + stamp);
        // buyers reserve through the admission entry, as the demo's do
        p.put("seckill.admission.entry-port", "0");
        long activity = 700_008;
        long pacedActivity = 700_012;
        Optional<Path> wrk = ExternalLoad.tool("wrk");
        if (wrk.isEmpty()) {
            throw new IllegalStateException("the pipeline run drives admission with wrk: apt-get install wrk");
        }
        new BenchRepository(engines.jdbcUrl()).settle();
        BenchCommand.emptyRedis(engines, "pipeline");
        try (ConfigurableApplicationContext app = bench.run(p)) {
            ActivityService activities = app.getBean(ActivityService.class);
            BenchCommand.openSale(activities, activity, "bench pipeline", BigDecimal.ONE, 50_000_000);
            BenchCommand.openSale(activities, pacedActivity, "bench pipeline, paced", BigDecimal.ONE, 50_000_000);
            int port = app.getBean(AdmissionEntry.class).port();
            int apiPort = ((WebServerApplicationContext) app).getWebServer().getPort();
            String url = "http://127.0.0.1:" + port + "/api/v1/activities/" + activity + "/skus/1/reservations";
            System.out.printf(
                    "[pipeline] %d s of admission with the send path and the order consumer behind it%n",
                    pipelineSeconds);
            // the consumer of a fresh topic starts cold (queue assignment, the first pulls): a warm-up first, and only
            // what is reserved in the measured window counts
            int pipelineWarmup = Math.max(5, Math.min(warmup, 20));
            Path warmTokens = bench.freshBuyers(pipelineWarmup, engines.home());
            ExternalLoad.WrkResult warm =
                    ExternalLoad.wrk(wrk.get(), url, warmTokens, concurrency, pipelineWarmup, engines.home());
            System.out.printf("[pipeline] warm-up %d s: %,.0f admitted/s%n", pipelineWarmup, warm.admittedPerSecond());
            Sustained unpaced = sustained(
                    app,
                    engines,
                    wrk.get(),
                    url,
                    activity,
                    pipelineSeconds,
                    warm.statuses().getOrDefault(202, 0L),
                    "");
            OrderPace pace = app.getBean(OrderPace.class);
            pace.setTarget(PACED_WAIT_TARGET);
            System.out.printf(
                    "[pipeline] %d s paced to the order consumers (order wait target %s)%n",
                    pipelineSeconds / 2, PACED_WAIT_TARGET);
            Sustained paced;
            try {
                paced = sustained(
                        app,
                        engines,
                        wrk.get(),
                        url.replace("/" + activity + "/", "/" + pacedActivity + "/"),
                        pacedActivity,
                        pipelineSeconds / 2,
                        0,
                        ", paced");
            } finally {
                // the drill measures the engine as it comes
                pace.setTarget(app.getBean(SeckillProperties.class).admission().orderWaitTarget());
            }
            drills(app, engines, port, apiPort);
            return new PipelineResult(
                    unpaced,
                    paced,
                    PACED_WAIT_TARGET,
                    app.getBean(SeckillProperties.class).admission().maxOrderBacklogAge());
        }
    }

    /**
     * {@code seconds} of wrk against {@code url} (sale {@code activity}), waited for until the pipeline has
     * decided every reservation it admitted ({@code admittedBefore} of them before this run), then
     * QUEUED -> ORDER_CREATED of the ones reserved in the run.
     */
    private Sustained sustained(
            ConfigurableApplicationContext app,
            EmbeddedEngines engines,
            Path wrk,
            String url,
            long activity,
            int seconds,
            long admittedBefore,
            String label)
            throws Exception {
        Path tokens = bench.freshBuyers(seconds, engines.home());
        Instant measuredFrom = Instant.now();
        SendPathWatch watch = new SendPathWatch(app);
        AdmissionBreaker breaker = app.getBean(AdmissionBreaker.class);
        var meters = app.getBean(io.micrometer.core.instrument.MeterRegistry.class);
        long trips0 = breaker.trips(AdmissionBreaker.Cause.SEND);
        long backlogTrips0 = breaker.trips(AdmissionBreaker.Cause.ORDER_BACKLOG);
        double away0 = meters.counter("reservation.rate_limited", "scope", "order_pace")
                .count();
        CpuSplit cpu0 = BenchCommand.cpuNow(engines);
        StatementTimes.reset(engines.jdbcUrl());
        ExternalLoad.WrkResult r = ExternalLoad.wrk(wrk, url, tokens, concurrency, seconds, engines.home());
        // the whole pipeline shares the cores with wrk: what each admitted reservation cost while wrk ran (the
        // machine's
        // figure holds Redis, wrk and what the other three leave out)
        CpuSplit cpu1 = BenchCommand.cpuNow(engines);
        String cpu = cpu1.since(cpu0, r.statuses().getOrDefault(202, 0L))
                .replace("CPU per order", "CPU per admitted reservation while wrk ran");
        double machineMicros = cpu1.machineMicrosSince(cpu0, r.statuses().getOrDefault(202, 0L));
        long trips = breaker.trips(AdmissionBreaker.Cause.SEND) - trips0;
        long backlogTrips = breaker.trips(AdmissionBreaker.Cause.ORDER_BACKLOG) - backlogTrips0;
        long turnedAway = (long) (meters.counter("reservation.rate_limited", "scope", "order_pace")
                        .count()
                - away0);
        double oldest = watch.maxOldestSeconds();
        String sendPath = watch.sinceLast();
        watch.close();
        bench.latencies.add("with the order consumer" + label + ", " + seconds + " s", r.latency());
        long admitted = r.statuses().getOrDefault(202, 0L) + admittedBefore;
        Reservations reservations = app.getBean(Reservations.class);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (reservations.decided(activity) < admitted && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(200);
        }
        Histogram h = new Histogram(3);
        BenchRepository db = new BenchRepository(engines.jdbcUrl());
        db.queuedToOrderMicros(activity, measuredFrom, us -> h.recordValue(Math.max(1, us)));
        long orders = h.getTotalCount();
        System.out.printf(
                "[pipeline%s] wrk: %,.0f admitted/s, statuses %s, latency p50 %.1f ms p99 %.1f ms; %s; %,d orders%n",
                label, r.admittedPerSecond(), r.statuses(), r.p50Millis(), r.p99Millis(), sendPath, orders);
        System.out.printf("[pipeline%s] %s%n", label, cpu);
        StatementTimes.print(engines.jdbcUrl(), Math.max(1, r.statuses().getOrDefault(202, 0L)));
        String file = "order-latency" + label.replaceAll("[^a-z]+", "-");
        LatencyCharts chart = new LatencyCharts();
        chart.add("QUEUED -> ORDER_CREATED", h);
        for (Path f : chart.write(
                charts, file, "QUEUED (Redis) to ORDER_CREATED (PostgreSQL), " + seconds + " s sustained" + label)) {
            System.out.println("[charts] " + f.toAbsolutePath());
        }
        long undecided = Math.max(0, admitted - reservations.decided(activity));
        for (String w : db.queuedToOrderByWindow(activity, measuredFrom)) {
            System.out.println("[pipeline" + label + "] QUEUED -> ORDER_CREATED, reserved at " + w);
        }
        var brokerWait = meters.find("order.request.broker.wait").timer();
        if (brokerWait != null) {
            System.out.printf(
                    "[pipeline%s] order requests' time in the broker (stored -> order consumer) since start: mean "
                            + "%.3f s, max %.3f s over %,d messages%n",
                    label, brokerWait.mean(TimeUnit.SECONDS), brokerWait.max(TimeUnit.SECONDS), brokerWait.count());
        }
        var deliveries = meters.find("order.consume.batch.size").summary();
        var groups = meters.find("order.commit.batch.size").summary();
        if (deliveries != null && groups != null) {
            System.out.printf(
                    "[pipeline%s] order consumer since start: %,d deliveries of %.1f messages on average, settled "
                            + "in %,d transactions of %.1f orders%n",
                    label, deliveries.count(), deliveries.mean(), groups.count(), groups.mean());
        }
        return new Sustained(
                seconds,
                r.admittedPerSecond(),
                r.statuses(),
                orders,
                undecided,
                h,
                trips,
                oldest,
                backlogTrips,
                turnedAway,
                machineMicros);
    }

    /** The drill's facts for both designs, printed side by side at the end. */
    private final List<String> drillReport = new ArrayList<>();

    /**
     * The same fault drill against the engine and the naive baseline, then the same checks on both: no
     * oversell, one order per buyer, and every unit accounted for in Redis or an order. The engine's
     * checks run after its pipeline has drained, with its own invariants beside them.
     */
    private void drills(ConfigurableApplicationContext app, EmbeddedEngines engines, int entryPort, int apiPort)
            throws Exception {
        // the engine's buyers come through the admission entry, the naive baseline's endpoint is on the API port
        String base = "http://127.0.0.1:" + entryPort;
        String naiveBase = "http://127.0.0.1:" + apiPort;
        long ours = 700_009;
        long naiveActivity = 700_010;
        ActivityService activities = app.getBean(ActivityService.class);
        BenchCommand.openSale(activities, ours, "bench drill", BigDecimal.ONE, FaultDrill.UNITS);
        System.out.printf(
                "[drill] %d units, %d buyers (%d of them sending twice at once), PostgreSQL stalled %d s a tenth "
                        + "of the way in: the engine%n",
                FaultDrill.UNITS, FaultDrill.BUYERS, FaultDrill.TWICE, FaultDrill.STALL.toSeconds());
        FaultDrill.Answers oursAnswers = FaultDrill.run(
                base,
                "/api/v1/activities/" + ours + "/skus/1/reservations",
                userSecret,
                8_000_000L,
                engines.jdbcUrl(),
                "orders");
        io.seckill.invariants.InvariantChecker checker = app.getBean(io.seckill.invariants.InvariantChecker.class);
        // the projection follows the whole pipeline run's events first (tens of thousands of orders): minutes, not
        // seconds
        long drainFrom = System.nanoTime();
        long deadline = drainFrom + TimeUnit.SECONDS.toNanos(300);
        List<io.seckill.invariants.InvariantChecker.Check> checks = checker.check(ours, true);
        // drained: no reservation still open in Redis (each one ordered or released), then every invariant
        while ((activities.inventoryView(ours).get(0).redis().openReserved() > 0
                        || !checks.stream().allMatch(io.seckill.invariants.InvariantChecker.Check::pass))
                && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(500);
            checks = checker.check(ours, true);
        }
        System.out.printf("[drill] the engine's pipeline drained in %.0f s%n", (System.nanoTime() - drainFrom) / 1e9);
        BenchRepository db = new BenchRepository(engines.jdbcUrl());
        long[] oursOrders = db.orderFacts("orders", ours);
        FaultDrill.Facts oursFacts = new FaultDrill.Facts(
                oursOrders[0],
                oursOrders[1],
                activities.inventoryView(ours).get(0).redis().stock());

        System.out.println("[drill] the same against the naive baseline");
        app.getBean(Redis.class)
                .sync()
                .set(NaiveBaseline.stockKey(naiveActivity, 1), Integer.toString(FaultDrill.UNITS));
        FaultDrill.Answers naiveAnswers = FaultDrill.run(
                naiveBase,
                NaiveBaseline.PATH
                        .replace("{activityId}", Long.toString(naiveActivity))
                        .replace("{skuId}", "1"),
                userSecret,
                9_000_000L,
                engines.jdbcUrl(),
                "naive_order");
        long[] naiveOrders = db.orderFacts("naive_order", naiveActivity);
        FaultDrill.Facts naiveFacts = new FaultDrill.Facts(
                naiveOrders[0],
                naiveOrders[1],
                Long.parseLong(app.getBean(Redis.class).sync().get(NaiveBaseline.stockKey(naiveActivity, 1))));

        drillReport.add(String.format(
                "fault drill: %d units, %d buyers, %d of them sending twice at once, PostgreSQL stalled "
                        + "%d s a tenth of the way in",
                FaultDrill.UNITS, FaultDrill.BUYERS, FaultDrill.TWICE, FaultDrill.STALL.toSeconds()));
        drillReport.add(String.format("  %-34s %-44s %s", "", "engine", "naive baseline (design section 4)"));
        drillReport.add(String.format("  %-34s %-44s %s", "answers", oursAnswers.statuses(), naiveAnswers.statuses()));
        String[] names = {
            "no oversell", "stock never below zero", "one order per buyer", "every unit in Redis or an order"
        };
        List<String> a = oursFacts.verdicts();
        List<String> b = naiveFacts.verdicts();
        for (int i = 0; i < names.length; i++) {
            drillReport.add(String.format("  %-34s %-44s %s", names[i], a.get(i), b.get(i)));
        }
        long failed = checks.stream().filter(c -> !c.pass()).count();
        drillReport.add(String.format(
                "  the engine's own invariants after drain: %d of %d pass%s",
                checks.size() - failed,
                checks.size(),
                failed == 0
                        ? ""
                        : " - "
                                + checks.stream()
                                        .filter(c -> !c.pass())
                                        .map(c -> c.name() + ": " + c.detail())
                                        .toList()));
        drillReport.forEach(System.out::println);
    }
}
