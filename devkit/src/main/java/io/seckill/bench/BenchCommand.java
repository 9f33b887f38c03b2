package io.seckill.bench;

import io.lettuce.core.RedisClient;
import io.seckill.SeckillApplication;
import io.seckill.activity.ActivityService;
import io.seckill.api.Tokens;
import io.seckill.cli.Secrets;
import io.seckill.engines.EmbeddedEngines;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code seckill bench}: throughput measured against ceilings measured in the same run, on the
 * same embedded engines, with fsync and synchronous_commit on.
 * <ol>
 * <li>Orders/s through the consumer on ONE hot SKU, topic pre-loaded: batched vs one message per
 * transaction, and vs the ceiling - the consumer's exact batch SQL driven directly (no broker) at
 * the same batch size and threads.</li>
 * <li>Reservations/s through the HTTP API vs unpipelined EVALSHA of the same reserve.lua at the
 * same concurrency.</li>
 * </ol>
 *
 * <p>Each part is a class of its own ({@link ConsumerPart}, {@link AdmissionPart}, {@link SaleFloodPart},
 * {@link PipelinePart}, {@link ClusterRun}); this command holds the options, what the parts share (the engines'
 * properties, buyers' tokens, sales) and the summary.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Measure throughput against same-run ceilings.")
public final class BenchCommand implements Callable<Integer> {

    @Option(
            names = "--orders",
            description = "messages pre-loaded for the batched consumer run (default ${DEFAULT-VALUE})")
    int orders = 30_000;

    @Option(
            names = "--single-orders",
            description = "messages for the one-per-transaction run (default ${DEFAULT-VALUE})")
    int singleOrders = 3_000;

    @Option(names = "--batch-size", description = "consumer batch size (default ${DEFAULT-VALUE})")
    int batchSize = 50;

    @Option(
            names = "--threads",
            description = "consumer threads = database connections used (default ${DEFAULT-VALUE})")
    int threads = 4;

    @Option(names = "--concurrency", description = "HTTP clients and Redis connections (default ${DEFAULT-VALUE})")
    int concurrency = 32;

    @Option(names = "--seconds", description = "duration of each admission run (default ${DEFAULT-VALUE})")
    int seconds = 10;

    @Option(
            names = "--warmup",
            description = "seconds of HTTP load before measuring, for the JIT (default ${DEFAULT-VALUE})")
    int warmup = 20;

    @Option(
            names = "--anchor-seconds",
            description = "duration of the minimal order batch run (default ${DEFAULT-VALUE})")
    int anchorSeconds = 20;

    @Option(names = "--app-property", description = "extra application property for the admission run (key=value)")
    Map<String, String> appProperties = new HashMap<>();

    @Option(names = "--parts", split = ",", description = "consumer, admission, sale, pipeline, cluster (default: all)")
    List<String> parts = List.of("consumer", "admission", "sale", "pipeline", "cluster");

    @Option(names = "--sale-units", description = "the sale part's units (default ${DEFAULT-VALUE})")
    int saleUnits = 1_000;

    @Option(
            names = "--pipeline-seconds",
            description = "duration of the sustained run through the whole pipeline " + "(default ${DEFAULT-VALUE})")
    int pipelineSeconds = 60;

    @Option(
            names = "--charts",
            description = "where latency histograms (.hgrm) and charts (.png) go (default ${DEFAULT-VALUE})")
    Path charts = Path.of("docs", "bench");

    @Option(
            names = "--url",
            description = "drive a running instance instead (its base URL): HTTP admission only, with wrk")
    String url;

    @Option(
            names = "--user-secret-file",
            description = "with --url: a file holding the instance's seckill.jwt.user-secret, to mint buyers' "
                    + "tokens (default: $SECKILL_JWT_USER_SECRET)")
    Path targetUserSecretFile;

    @Option(names = "--activity", description = "with --url: an open sale's activity id")
    long targetActivity;

    @Option(names = "--sku", description = "with --url: the SKU to reserve (default ${DEFAULT-VALUE})")
    long targetSku = 1;

    final String idKey = "bench-ids-" + UUID.randomUUID() + UUID.randomUUID();
    final String userSecret = "bench-user-" + UUID.randomUUID() + UUID.randomUUID();
    private final String adminSecret = "bench-admin-" + UUID.randomUUID() + UUID.randomUUID();

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        out.printf(
                "seckill bench on %d cores, %s, JDK %s%n",
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name") + " " + System.getProperty("os.arch"),
                Runtime.version());
        if (url != null) {
            return remote(out);
        }
        try (EmbeddedEngines engines = EmbeddedEngines.start(true)) {
            Optional<ConsumerPart> consumer = parts.contains("consumer")
                    ? Optional.of(new ConsumerPart(this, engines).measure())
                    : Optional.empty();
            Optional<AdmissionPart> admission = parts.contains("admission")
                    ? Optional.of(new AdmissionPart(this).measure(engines))
                    : Optional.empty();
            List<String> sale = parts.contains("sale")
                    ? new SaleFloodPart(this)
                            .saleFlood(
                                    engines, admission.map(AdmissionPart::entry).orElse(Double.NaN))
                    : List.of();
            PipelinePart pipelinePart = new PipelinePart(this);
            Optional<PipelinePart.PipelineResult> pipeline =
                    parts.contains("pipeline") ? Optional.of(pipelinePart.pipeline(engines)) : Optional.empty();
            List<ClusterRun.Result> cluster = parts.contains("cluster")
                    ? ClusterRun.run(engines.home().resolve("bench-redis-cluster"), concurrency, seconds)
                    : List.of();
            if (!latencies.isEmpty()) {
                for (Path f :
                        latencies.write(charts, "admission-latency", "HTTP answer latency, wrk -c " + concurrency)) {
                    out.println("[charts] " + f.toAbsolutePath());
                }
            }

            out.println();
            out.println("=== seckill bench (fsync on, synchronous_commit on, one hot SKU) ===");
            consumer.ifPresent(c -> c.print(out));
            admission.ifPresent(a -> a.print(out));
            sale.forEach(out::println);
            pipeline.ifPresent(r -> r.print(
                    out,
                    admission.map(AdmissionPart::evalshaRedisMicros).orElse(Double.NaN),
                    consumer.map(ConsumerPart::minimalCpuMicros).orElse(Double.NaN)));
            printCluster(out, cluster);
            pipelinePart.drillReport().forEach(out::println);
            // the bench fails only when it could not measure; a goal not met is a finding, printed above
            boolean measured = consumer.map(ConsumerPart::measured).orElse(true)
                    && admission.map(AdmissionPart::measured).orElse(true)
                    && pipeline.map(r -> r.orders() > 0).orElse(true)
                    && cluster.stream().allMatch(r -> r.perSecond() > 0);
            return measured ? 0 : 1;
        }
    }

    /**
     * The whole pipeline's goal: the machine's CPU per admitted reservation against the least a reservation and an
     * order cost on their own in the same run - redis-server's CPU per EVALSHA and the minimal batch's PostgreSQL CPU
     * per order.
     */
    static String pipelineCost(double machineMicros, double evalshaMicros, double minimalMicros) {
        if (Double.isNaN(machineMicros) || Double.isNaN(evalshaMicros) || Double.isNaN(minimalMicros)) {
            return String.format(
                    "  machine CPU per admitted reservation %s; against EVALSHA + the minimal order: not measured "
                            + "(needs the consumer and admission parts in the same run, redis-benchmark and pgbench)",
                    Double.isNaN(machineMicros) ? "unknown" : String.format("%.0f us", machineMicros));
        }
        double ratio = machineMicros / (evalshaMicros + minimalMicros);
        return String.format(
                "  machine CPU per admitted reservation %.0f us / (redis-server per EVALSHA %.1f us + minimal order's "
                        + "PostgreSQL %.1f us) = %.1fx   (goal <= 8x: %s)",
                machineMicros, evalshaMicros, minimalMicros, ratio, met(ratio <= 8));
    }

    private void printCluster(PrintStream out, List<ClusterRun.Result> cluster) {
        if (cluster.isEmpty()) {
            return;
        }
        out.printf(
                "Redis Cluster, one hot SKU in 1-3 buckets on as many masters, reserve.lua, %d connections:%n",
                concurrency);
        for (ClusterRun.Result r : cluster) {
            out.printf(
                    "  %d master(s): %,10.0f reservations/s, %.1fx one master, redis-server CPU %.1f us per reservation%n",
                    r.masters(),
                    r.perSecond(),
                    r.perSecond() / cluster.getFirst().perSecond(),
                    r.redisMicrosPerReservation());
        }
        out.printf(
                "  (%d cores for every master and the load: the ratio is bounded by the machine, see docs/BENCHMARKS.md)%n",
                Runtime.getRuntime().availableProcessors());
    }

    static String met(boolean met) {
        return met ? "met" : "not met";
    }

    /** {@code --url}: wrk against a running instance's reservation endpoint, with buyers' tokens minted from its secret. */
    int remote(PrintStream out) throws Exception {
        String targetUserSecret = Secrets.fromFileOr(
                targetUserSecretFile, System.getenv("SECKILL_JWT_USER_SECRET"), "--user-secret-file");
        if (targetUserSecret == null || targetUserSecret.length() < 32 || targetActivity <= 0) {
            System.err.println(
                    "--url needs --user-secret-file or $SECKILL_JWT_USER_SECRET (the instance's, at least 32 characters) and "
                            + "--activity (an open sale)");
            return 2;
        }
        Optional<Path> wrk = ExternalLoad.tool("wrk");
        if (wrk.isEmpty()) {
            System.err.println("--url drives the instance with wrk: apt-get install wrk");
            return 2;
        }
        String base = url.replaceAll("/+$", "");
        String target = base + "/api/v1/activities/" + targetActivity + "/skus/" + targetSku + "/reservations";
        String floorTarget = base + "/api/v1/activities/" + REMOTE_FLOOR_ACTIVITY + "/skus/1/reservations";
        Path dir = Files.createTempDirectory("seckill-bench");
        long firstBuyer = 10_000_000L + (System.currentTimeMillis() % 1_000_000) * 1_000;
        Path tokens = tokens(targetUserSecret, firstBuyer, 250_000, dir);
        // the floor first: the same buyers' tokens, checked the same way, refused 404 without Redis (no such sale),
        // so the sale's buyers are still new to it
        ExternalLoad.WrkResult floor = ExternalLoad.wrk(wrk.get(), floorTarget, tokens, concurrency, seconds, dir);
        out.printf(
                "[remote] floor, a sale that does not exist (%s): %,.0f answers/s, statuses %s, latency p50 %.1f ms "
                        + "p99 %.1f ms%n",
                floorTarget, floor.requestsPerSecond(), floor.statuses(), floor.p50Millis(), floor.p99Millis());
        ExternalLoad.WrkResult r = ExternalLoad.wrk(wrk.get(), target, tokens, concurrency, seconds, dir);
        out.printf(
                "[remote] %s: %,.0f admitted/s of %,.0f answers/s, statuses %s, latency p50 %.1f ms p99 %.1f ms%n",
                target, r.admittedPerSecond(), r.requestsPerSecond(), r.statuses(), r.p50Millis(), r.p99Millis());
        out.println();
        out.printf("=== seckill bench --url %s, %d clients, %d s each ===%n", base, concurrency, seconds);
        for (String line : remoteSummary(floor, r, seconds)) {
            out.println(line);
        }
        return r.answers() > 0 && floor.answers() > 0 ? 0 : 1;
    }

    /** An activity id no deployment is expected to have: the {@code --url} floor's target. */
    static final long REMOTE_FLOOR_ACTIVITY = 999_999_999_999L;

    /**
     * The {@code --url} run as a sale: answers per second by outcome beside the floor's, and the refusals' ratio to it
     * (the sale part's goal, on the instance's own hardware) once the sale answers SOLD_OUT.
     */
    static List<String> remoteSummary(ExternalLoad.WrkResult floor, ExternalLoad.WrkResult sale, int seconds) {
        List<String> lines = new ArrayList<>();
        double floorRate = floor.requestsPerSecond();
        lines.add(String.format(
                "floor: an unknown sale answered from memory after the token check: %,10.0f answers/s, p99 %.1f ms",
                floorRate, floor.p99Millis()));
        lines.add(String.format(
                "the sale: %,.0f answers/s, p99 %.1f ms, by status: %s",
                sale.requestsPerSecond(),
                sale.p99Millis(),
                sale.statuses().entrySet().stream()
                        .map(e -> String.format("%d %,.0f/s", e.getKey(), e.getValue() / (double) seconds))
                        .collect(Collectors.joining(", "))));
        double soldOut = sale.statuses().getOrDefault(409, 0L) / (double) seconds;
        if (soldOut > 0 && floorRate > 0) {
            lines.add(String.format(
                    "  refusals (409) / floor = %.2fx   (goal >= 0.8x once sold out: %s)",
                    soldOut / floorRate, met(soldOut / floorRate >= 0.8)));
        } else {
            lines.add("  no 409 answers: the sale did not sell out within the run (refusals / floor not measured)");
        }
        return lines;
    }

    Map<String, Object> baseProperties(EmbeddedEngines engines) {
        Map<String, Object> p = new HashMap<>(engines.springProperties());
        p.put("seckill.ids.keys.1", idKey);
        p.put("seckill.jwt.user-secret", userSecret);
        p.put("seckill.jwt.admin-secret", adminSecret);
        p.put("seckill.payment.callback-secret", "bench-callback-" + UUID.randomUUID() + UUID.randomUUID());
        p.put("logging.level.io.seckill", "WARN");
        return p;
    }

    /**
     * Properties of an application with its HTTP server on a free loopback port; the {@code --app-property}
     * values are laid over them when it starts ({@link #run}).
     */
    Map<String, Object> webProperties(EmbeddedEngines engines) {
        Map<String, Object> p = baseProperties(engines);
        p.put("server.port", "0");
        p.put("server.address", "127.0.0.1");
        return p;
    }

    /** Starts the bench's web application with the naive baseline's endpoint beside the engine's; --app-property last. */
    ConfigurableApplicationContext run(Map<String, Object> p) {
        Map<String, Object> all = new HashMap<>(p);
        all.putAll(appProperties);
        return withNaiveBaseline(new SpringApplicationBuilder(SeckillApplication.class))
                .properties(all)
                .run();
    }

    /**
     * Buyers a wrk run of the admission entry or the API port can use up, each a buyer once: more than any
     * entry here answers in that time, so no run runs out and comes round to buyers who already reserved.
     */
    private static final int BUYERS_PER_SECOND = 15_000;
    /** The first buyer of the next wrk run's range (buyers of the other parts stay below it). */
    private long nextBuyer = 20_000_000L;

    /** Tokens of buyers never used before in this run, enough for {@code runSeconds} of wrk. */
    Path freshBuyers(int runSeconds, Path dir) throws IOException {
        int n = Math.max(100_000, BUYERS_PER_SECOND * runSeconds);
        Path file = tokens(userSecret, nextBuyer, n, dir);
        nextBuyer += n;
        return file;
    }

    /**
     * A file of {@code n} buyers' tokens for users {@code firstUser + 1 .. firstUser + n}, one a line, for
     * wrk, minted in parallel a few thousand at a time. The bench runs in the application's JVM: tokens
     * held in memory while wrk runs (250,000 are some 60 MB) would be copied by the application's young
     * collections and stretch the very pauses the latency measures. Nor may they all be minted into one
     * list: a collection during the minting moves the list's array, megabytes in one piece, to the old
     * generation, where it stays until a full collection, and as long as it is there every young
     * collection takes the tokens it points to for live and copies them again (scavenges of 170-240 ms in
     * the measured runs that followed; 2-6 ms without that list).
     */
    static Path tokens(String secret, long firstUser, int n, Path dir) throws IOException {
        Path file = dir.resolve("tokens-" + firstUser + "-" + n + ".txt");
        int chunk = 4_096;
        try (var out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int from = 1; from <= n; from += chunk) {
                int to = Math.min(n, from + chunk - 1);
                String lines = IntStream.rangeClosed(from, to)
                        .parallel()
                        .mapToObj(u -> Tokens.user(secret, firstUser + u, Duration.ofHours(1)))
                        .collect(Collectors.joining("\n", "", "\n"));
                out.write(lines);
            }
        }
        return file;
    }

    /** Creates, warms and opens a one-SKU sale in the running application. */
    static void openSale(ActivityService activities, long activityId, String name, BigDecimal price, int stock) {
        openSale(activities, activityId, name, price, stock, 1);
    }

    /** Creates, warms and opens a one-SKU sale of {@code buckets} buckets in the running application. */
    static void openSale(
            ActivityService activities, long activityId, String name, BigDecimal price, int stock, int buckets) {
        activities.create(new ActivityService.NewActivity(
                activityId,
                name,
                Instant.now().minusSeconds(5),
                Instant.now().plusSeconds(3600),
                600,
                900,
                List.of(new ActivityService.NewSku(1L, price, stock, buckets))));
        activities.warm(activityId);
        activities.open(activityId);
    }

    static CpuSplit cpuNow(EmbeddedEngines engines) {
        return CpuSplit.now(engines.home().resolve("pgdata"), engines.broker().pid());
    }

    /** The HTTP answer latencies of the measured runs, drawn at the end. */
    final LatencyCharts latencies = new LatencyCharts();

    private static SpringApplicationBuilder withNaiveBaseline(SpringApplicationBuilder builder) {
        return builder.initializers(
                ctx -> NaiveBaseline.register((org.springframework.context.support.GenericApplicationContext) ctx));
    }

    /**
     * The part starts on an empty Redis, as a sale does: the admission part leaves a million or so
     * reservations behind (three keys each, never sent on), which filled the engines' 1 GB once the entry
     * got faster. Nothing else uses Redis between parts; the next part's sales are warmed from PostgreSQL.
     */
    static void emptyRedis(EmbeddedEngines engines, String part) {
        RedisClient client = RedisClient.create(engines.redisUri());
        try (var c = client.connect()) {
            long keys = c.sync().dbsize();
            String used = c.sync()
                    .info("memory")
                    .lines()
                    .filter(l -> l.startsWith("used_memory_human:"))
                    .map(l -> l.substring(l.indexOf(':') + 1).strip())
                    .findFirst()
                    .orElse("?");
            c.sync().flushall();
            System.out.printf("[%s] Redis emptied of the earlier parts' keys (%,d keys, %s)%n", part, keys, used);
        } finally {
            client.shutdown();
        }
    }
}
