package io.seckill.bench;

import io.lettuce.core.RedisClient;
import io.seckill.activity.ActivityService;
import io.seckill.api.Tokens;
import io.seckill.cli.SaleClient;
import io.seckill.engines.EmbeddedEngines;
import io.seckill.entry.AdmissionEntry;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.ReservationIds;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The bench's admission part: EVALSHA of reserve.lua with redis-benchmark (the ceiling), the API port and the
 * admission entry under wrk, the entry paced, and the naive baseline under the same load.
 */
final class AdmissionPart {

    private final BenchCommand bench;

    private final int concurrency;

    private final int seconds;

    private final int warmup;

    private final String idKey;

    private final String userSecret;

    private double evalsha = Double.NaN;

    /** redis-server's CPU per EVALSHA of the ceiling run, in microseconds (NaN when not measured). */
    private double evalshaRedisMicros = Double.NaN;

    /** The application's CPU per answer of the entry's measured run, in microseconds (NaN when not measured). */
    private double entryCpuMicros = Double.NaN;

    private double http = Double.NaN;

    private double entry = Double.NaN;

    AdmissionPart(BenchCommand bench) {
        this.bench = bench;
        this.concurrency = bench.concurrency;
        this.seconds = bench.seconds;
        this.warmup = bench.warmup;
        this.idKey = bench.idKey;
        this.userSecret = bench.userSecret;
    }

    AdmissionPart measure(EmbeddedEngines engines) throws Exception {
        double[] r = admission(engines);
        evalsha = r[0];
        http = r[1];
        entry = r[2];
        return this;
    }

    /** The admission entry's admitted reservations per second (NaN without wrk). */
    double entry() {
        return entry;
    }

    /** redis-server's CPU per EVALSHA in microseconds, NaN when not measured. */
    double evalshaRedisMicros() {
        return evalshaRedisMicros;
    }

    boolean measured() {
        return evalsha > 0 && http > 0 && !(entry <= 0);
    }

    void print(PrintStream out) {
        out.printf("EVALSHA reserve.lua, %d connections: %,10.0f reservations/s%n", concurrency, evalsha);
        out.printf("HTTP API port, %d clients:           %,10.0f reservations/s%n", concurrency, http);
        out.printf("  API port / EVALSHA = %.2fx%n", http / evalsha);
        if (!Double.isNaN(entry)) {
            out.printf("HTTP admission entry, %d clients:    %,10.0f reservations/s%n", concurrency, entry);
            out.printf(
                    "  entry / EVALSHA = %.2fx   (goal >= 0.5x: %s)%n",
                    entry / evalsha, BenchCommand.met(entry / evalsha >= 0.5));
            out.printf("  entry / API port = %.2fx%n", entry / http);
            if (!Double.isNaN(entryCpuMicros) && !Double.isNaN(evalshaRedisMicros)) {
                double ratio = entryCpuMicros / evalshaRedisMicros;
                out.printf(
                        "  entry: application CPU per answer %.0f us / redis-server CPU per EVALSHA %.1f us = %.2fx   "
                                + "(goal <= 1.5x: %s)%n",
                        entryCpuMicros, evalshaRedisMicros, ratio, BenchCommand.met(ratio <= 1.5));
            }
        }
        if (paced != null) {
            out.printf(
                    "  entry paced to %,.0f/s (EVALSHA / 4: half of the 0.5x goal): %,.0f admitted/s, p50 %.1f ms,"
                            + " p99 %.1f ms   (goal p99 <= 10 ms at that rate: %s)%n",
                    paced.rate(),
                    paced.admitted(),
                    paced.p50Millis(),
                    paced.p99Millis(),
                    BenchCommand.met(paced.met()));
        }
        if (pacedHalf != null) {
            out.printf(
                    "  entry paced to %,.0f/s (half of its own rate): %,.0f admitted/s, p50 %.1f ms, p99 %.1f ms%n",
                    pacedHalf.rate(), pacedHalf.admitted(), pacedHalf.p50Millis(), pacedHalf.p99Millis());
        }
        if (!Double.isNaN(naive)) {
            out.printf("naive baseline (design section 4):   %,10.0f orders/s%n", naive);
            out.printf(
                    "  HTTP / naive = %.2fx   (goal >= 0.8x: %s)%n",
                    http / naive, BenchCommand.met(http / naive >= 0.8));
        }
    }

    /** {EVALSHA reservations/s, HTTP reservations/s}, both at {@link #concurrency}. */
    private double[] admission(EmbeddedEngines engines) throws Exception {
        Map<String, Object> p = bench.webProperties(engines);
        // the API and the send path behind it (the rescan too): admission is only real if its messages leave
        p.put("seckill.roles", "api,send-due-scanner");
        long evalActivity = 700_004;
        long httpActivity = 700_005;
        int huge = 50_000_000;
        // the lean admission entry beside the API port, on a port of its own
        p.put("seckill.admission.entry-port", "0");
        // admission is measured alone: no order consumer takes these messages, so the entry's pause for an order
        // backlog would stop every run after its first seconds (the pipeline run keeps it, with its consumer)
        p.put("seckill.admission.max-order-backlog-age", "0s");
        try (ConfigurableApplicationContext app = bench.run(p)) {
            ActivityService activities = app.getBean(ActivityService.class);
            for (long a : new long[] {evalActivity, httpActivity}) {
                activities.create(new ActivityService.NewActivity(
                        a,
                        "bench " + a,
                        Instant.now().minusSeconds(5),
                        Instant.now().plusSeconds(3600),
                        600,
                        900,
                        List.of(new ActivityService.NewSku(1L, BigDecimal.ONE, huge, 1))));
                activities.warm(a);
            }
            activities.open(httpActivity);
            // the EVALSHA ceiling is Redis alone: its sale is open in Redis only, so no worker of the application
            // (rescan, breaker) ever sees the reservations it writes, which are never meant to be sent
            app.getBean(Redis.class).sync().hset(SkuSlot.single(evalActivity, 1).meta(), "status", "OPEN");
            Optional<Path> redisBenchmark = ExternalLoad.tool("redis-benchmark");
            double evalsha;
            if (redisBenchmark.isPresent()) {
                String sha = app.getBean(Redis.class)
                        .sync()
                        .scriptLoad(LuaScript.load("reserve").source())
                        .toString();
                Optional<Long> redisPid = CpuMeter.redisPid(engines.redisPort());
                long redisCpu0 = redisPid.map(CpuMeter::processNanos).orElse(-1L);
                int evalRequests = 150_000;
                evalsha = ExternalLoad.redisBenchmark(
                        redisBenchmark.get(), engines.redisPort(), sha, evalActivity, concurrency, evalRequests);
                long redisCpu1 = redisPid.map(CpuMeter::processNanos).orElse(-1L);
                if (redisCpu0 >= 0 && redisCpu1 >= 0) {
                    evalshaRedisMicros = (redisCpu1 - redisCpu0) / 1000.0 / evalRequests;
                }
                System.out.printf(
                        "[evalsha] redis-benchmark: %,.0f reservations/s; redis-server CPU per EVALSHA: %s%n",
                        evalsha,
                        redisCpu0 < 0 || redisCpu1 < 0
                                ? "not measured"
                                : String.format("%.1f us", (redisCpu1 - redisCpu0) / 1000.0 / evalRequests));
                // those reservations are Redis writes only, never meant to be sent: the next phase starts clean
                SkuSlot evalSlot = SkuSlot.single(evalActivity, 1);
                app.getBean(Redis.class).sync().del(evalSlot.sendDue(), evalSlot.deadlines());
            } else {
                System.out.println("[evalsha] redis-benchmark not installed (apt-get install redis-tools): JVM client");
                evalsha = evalshaRun(engines, evalActivity);
            }
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();
            Optional<Path> wrk = ExternalLoad.tool("wrk");
            double http;
            double entry = Double.NaN;
            if (wrk.isPresent()) {
                http = wrkAdmission("http", app, wrk.get(), engines, port, () -> httpActivity);
                naive = naiveRun(app, wrk.get(), port, engines);
                int entryPort = app.getBean(AdmissionEntry.class).port();
                // each of the entry's runs (its warm-up too) on a sale of its own in an emptied Redis: what a run
                // admits stays in Redis (no order consumer here), and a run after a few hundred thousand
                // reservations would meet Redis's memory limit and answer 503s of the bench's own making
                long[] entrySale = {ENTRY_SALES};
                LongSupplier freshEntrySale = () -> {
                    long a = ++entrySale[0];
                    BenchCommand.emptyRedis(engines, "entry");
                    BenchCommand.openSale(activities, a, "bench entry " + a, BigDecimal.ONE, huge);
                    return a;
                };
                entry = wrkAdmission("entry", app, wrk.get(), engines, entryPort, freshEntrySale);
                paced = pacedEntry(app, wrk.get(), engines, entryPort, freshEntrySale.getAsLong(), evalsha / 4);
                // and at half of what the entry itself sustained: its latency with headroom, whatever the goal's rate
                pacedHalf = pacedEntry(app, wrk.get(), engines, entryPort, freshEntrySale.getAsLong(), entry / 2);
            } else {
                System.out.println(
                        "[http] wrk not installed (apt-get install wrk): JVM client, which costs CPU itself");
                http = httpRun("http://127.0.0.1:" + port, httpActivity);
            }
            return new double[] {evalsha, http, entry};
        }
    }

    /**
     * Reservations admitted per second (202s) by wrk against one entry's reserve call - the API port or
     * the admission entry - after a warm-up, with the application's CPU per answer and the send path's state.
     */
    private double wrkAdmission(
            String label,
            ConfigurableApplicationContext app,
            Path wrk,
            EmbeddedEngines engines,
            int port,
            LongSupplier sale)
            throws Exception {
        Path warmupTokens = bench.freshBuyers(warmup, engines.home());
        try (SendPathWatch watch = new SendPathWatch(app)) {
            ExternalLoad.WrkResult warm =
                    ExternalLoad.wrk(wrk, reservations(port, sale), warmupTokens, concurrency, warmup, engines.home());
            System.out.printf(
                    "[%s] warm-up %d s: %,.0f admitted/s of %,.0f answers/s, statuses %s; %s%n",
                    label,
                    warmup,
                    warm.admittedPerSecond(),
                    warm.requestsPerSecond(),
                    warm.statuses(),
                    watch.sinceLast());
            Path tokens = bench.freshBuyers(seconds, engines.home());
            String url = reservations(port, sale);
            Observation.Observed run = Observation.observe(
                    app,
                    label.equals("entry"),
                    () -> ExternalLoad.wrk(wrk, url, tokens, concurrency, seconds, engines.home()));
            ExternalLoad.WrkResult measured = run.wrk();
            if (label.equals("entry")) {
                entryCpuMicros = run.cpuNanos() / 1000.0 / Math.max(1, measured.answers());
            }
            bench.latencies.add(
                    (label.equals("entry") ? "admission entry" : "API port") + ", admission only (api + send path), "
                            + seconds + " s",
                    measured.latency());
            System.out.printf(
                    "[%s] application CPU per answer: %.0f us (%d answers, %.1f CPU-seconds in %d s)%n",
                    label,
                    run.cpuNanos() / 1000.0 / Math.max(1, measured.answers()),
                    measured.answers(),
                    run.cpuNanos() / 1e9,
                    seconds);
            System.out.printf(
                    "[%s] wrk: %,.0f admitted/s of %,.0f answers/s, statuses %s, latency p50 %.1f ms p99 %.1f ms;"
                            + " %s%n",
                    label,
                    measured.admittedPerSecond(),
                    measured.requestsPerSecond(),
                    measured.statuses(),
                    measured.p50Millis(),
                    measured.p99Millis(),
                    watch.sinceLast());
            if (run.inEntry() != null) {
                System.out.printf("[%s] %s%n", label, run.inEntry());
            }
            System.out.printf("[%s] %s%n", label, run.redis());
            return measured.admittedPerSecond();
        }
    }

    /** The first id of the entry's sales, one a run. */
    private static final long ENTRY_SALES = 700_100;

    /** The reservation URL of the sale {@code sale} gives (asked once: it may open a new one). */
    private static String reservations(int port, LongSupplier sale) {
        return "http://127.0.0.1:" + port + "/api/v1/activities/" + sale.getAsLong() + "/skus/1/reservations";
    }

    /** Measured by {@link #admission} after the entry's unpaced run (at EVALSHA / 4, at half the entry's rate); null without wrk. */
    private Paced paced;

    private Paced pacedHalf;

    /** The entry at a load fixed in advance: the rate asked for, what was admitted, and the latency. */
    private record Paced(double rate, double admitted, double p50Millis, double p99Millis) {
        /** The goal: p99 <= 10 ms, at the rate asked for (a server that fell behind the pace did not meet it). */
        boolean met() {
            return p99Millis <= 10 && admitted >= 0.95 * rate;
        }
    }

    /**
     * The entry's latency at a quarter of the EVALSHA rate - half of the 0.5x goal, the load at which the
     * goal asks for p99 <= 10 ms - paced by wrk rather than as fast as answers come.
     */
    private Paced pacedEntry(
            ConfigurableApplicationContext app, Path wrk, EmbeddedEngines engines, int port, long activity, double rate)
            throws Exception {
        String url = "http://127.0.0.1:" + port + "/api/v1/activities/" + activity + "/skus/1/reservations";
        Path tokens = bench.freshBuyers(seconds, engines.home());
        try (SendPathWatch watch = new SendPathWatch(app)) {
            Observation.Observed run = Observation.observe(
                    app, true, () -> ExternalLoad.wrk(wrk, url, tokens, concurrency, seconds, engines.home(), rate));
            ExternalLoad.WrkResult r = run.wrk();
            System.out.printf(
                    "[entry-paced] wrk paced to %,.0f/s: %,.0f admitted/s of %,.0f answers/s, statuses %s, latency"
                            + " p50 %.1f ms p99 %.1f ms; %s; %s; %s%n",
                    rate,
                    r.admittedPerSecond(),
                    r.requestsPerSecond(),
                    r.statuses(),
                    r.p50Millis(),
                    r.p99Millis(),
                    run.inEntry(),
                    run.redis(),
                    watch.sinceLast());
            bench.latencies.add(String.format("admission entry paced to %,.0f/s, %d s", rate, seconds), r.latency());
            return new Paced(rate, r.admittedPerSecond(), r.p50Millis(), r.p99Millis());
        }
    }

    /** Orders/s of the naive baseline (HTTP 200s), measured by {@link #admission} right after the engine's own run. */
    private double naive = Double.NaN;

    /** The naive baseline under the same wrk load as the engine's run, on a stock that cannot run out. */
    private double naiveRun(ConfigurableApplicationContext app, Path wrk, int port, EmbeddedEngines engines)
            throws Exception {
        long activity = 700_006;
        app.getBean(Redis.class).sync().set(NaiveBaseline.stockKey(activity, 1), "50000000");
        String url = "http://127.0.0.1:" + port
                + NaiveBaseline.PATH
                        .replace("{activityId}", Long.toString(activity))
                        .replace("{skuId}", "1");
        Path tokens = BenchCommand.tokens(userSecret, 5_000_000L, 250_000, engines.home());
        ExternalLoad.WrkResult r = ExternalLoad.wrk(wrk, url, tokens, concurrency, seconds, engines.home());
        double ordered = r.requestsPerSecond() * r.statuses().getOrDefault(200, 0L) / Math.max(1, r.answers());
        System.out.printf(
                "[naive] design section 4's baseline (GET, DECR, check then synchronous INSERT): %,.0f orders/s "
                        + "of %,.0f answers/s, statuses %s, latency p50 %.1f ms p99 %.1f ms%n",
                ordered, r.requestsPerSecond(), r.statuses(), r.p50Millis(), r.p99Millis());
        bench.latencies.add("naive baseline (design section 4), " + seconds + " s", r.latency());
        return ordered;
    }

    private double evalshaRun(EmbeddedEngines engines, long activityId) throws Exception {
        LuaScript reserve = LuaScript.load("reserve");
        ReservationIds ids = new ReservationIds(Map.of(1, idKey));
        RedisClient client = RedisClient.create(engines.redisUri());
        try {
            String sha = client.connect().sync().scriptLoad(reserve.source());
            return ClosedLoop.run("evalsha", 1_000_000, concurrency, seconds, () -> {
                Redis conn = Redis.of(client.connect());
                return new ClosedLoop.Buyer() {
                    @Override
                    public void buy(long user) {
                        ClosedLoop.reserve(conn.sync(), sha, ids, SkuSlot.forUser(activityId, 1, 1, user), user);
                    }

                    @Override
                    public void close() {
                        conn.close();
                    }
                };
            });
        } finally {
            client.shutdown();
        }
    }

    private double httpRun(String base, long activityId) throws Exception {
        SaleClient client = new SaleClient(base);
        return ClosedLoop.run("http", 2_000_000, concurrency, seconds, () -> user -> {
            String token = Tokens.user(userSecret, user, Duration.ofHours(1));
            SaleClient.Response r =
                    client.reserve(token, activityId, 1, UUID.randomUUID().toString());
            if (r.status() != 202) {
                throw new IllegalStateException("HTTP bench answered " + r.status() + " " + r.body());
            }
        });
    }
}
