package io.seckill.bench;

import io.lettuce.core.RedisClient;
import io.seckill.SeckillApplication;
import io.seckill.activity.ActivityService;
import io.seckill.api.Tokens;
import io.seckill.cli.SaleClient;
import io.seckill.cli.Secrets;
import io.seckill.config.SeckillProperties;
import io.seckill.engines.EmbeddedEngines;
import io.seckill.entry.AdmissionEntry;
import io.seckill.json.Json;
import io.seckill.mq.MqClients;
import io.seckill.order.InboundOrder;
import io.seckill.order.OrderBatchService;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.AdmissionBreaker;
import io.seckill.reservation.OrderCreateRequested;
import io.seckill.reservation.OrderPace;
import io.seckill.reservation.OrderRequestSender;
import io.seckill.reservation.ReservationIds;
import io.seckill.reservation.ReservationRepository;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.HdrHistogram.Histogram;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
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

    private final String idKey = "bench-ids-" + UUID.randomUUID() + UUID.randomUUID();
    private final String userSecret = "bench-user-" + UUID.randomUUID() + UUID.randomUUID();
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
            boolean consumer = parts.contains("consumer");
            // On two cores the JIT compiler competes with the run for a core: the ceiling and a warm-up
            // drain run first, so every measured run uses compiled code.
            if (consumer) {
                sqlCeiling(engines, Math.max(5_000, orders / 3), 700_007, "ceiling warm-up");
                consumerRun(engines, "warmup", Math.max(5_000, orders / 3), batchSize);
            }
            double ceiling = consumer ? sqlCeiling(engines, orders, 700_003, "ceiling") : Double.NaN;
            Optional<SqlAnchor.Result> anchor = consumer ? anchor(engines) : java.util.Optional.empty();
            double batched = consumer ? consumerRun(engines, "batched", orders, batchSize) : Double.NaN;
            double single = consumer ? consumerRun(engines, "single", singleOrders, 1) : Double.NaN;
            if (consumer) {
                System.out.printf(
                        "[consumer] %,d order events of the consumer runs retired from the outbox (nothing reads them)%n",
                        new BenchRepository(engines.jdbcUrl()).retireUnsentEvents());
            }
            double[] admission = parts.contains("admission")
                    ? admission(engines)
                    : new double[] {Double.NaN, Double.NaN, Double.NaN};
            double evalsha = admission[0];
            double http = admission[1];
            double entry = admission[2];
            List<String> sale = parts.contains("sale") ? saleFlood(engines, entry) : List.of();
            Optional<PipelineResult> pipeline =
                    parts.contains("pipeline") ? Optional.of(pipeline(engines)) : Optional.empty();
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
            if (consumer) {
                out.printf("consumer, batch %d, %d threads:      %,10.0f orders/s%n", batchSize, threads, batched);
                out.printf("consumer, one message per tx:       %,10.0f orders/s%n", single);
                out.printf("ceiling: same batch SQL, no broker: %,10.0f orders/s%n", ceiling);
                out.printf(
                        "  batched / per-message = %.1fx   (goal >= 10x: %s)%n",
                        batched / single, met(batched / single >= 10));
                out.printf(
                        "  batched / SQL ceiling = %.2fx   (goal >= 0.8x: %s)%n",
                        batched / ceiling, met(batched / ceiling >= 0.8));
                if (anchor.isPresent()) {
                    double minimal = anchor.get().ordersPerSecond();
                    out.printf("minimal order batch (pgbench):      %,10.0f orders/s%n", minimal);
                    out.printf(
                            "  consumer batch SQL / minimal = %.2fx   (goal >= 0.4x: %s)%n",
                            ceiling / minimal, met(ceiling / minimal >= 0.4));
                    out.printf("  consumer batch SQL: %s%n", ceilingWal);
                    out.printf("  minimal batch:      %s%n", anchor.get().wal());
                    WalMeter.Cost least = anchor.get().wal();
                    double cpuRatio = ceilingWal.cpuMicros() / least.cpuMicros();
                    double walRatio = ceilingWal.bytes() / least.bytes();
                    out.printf(
                            "  PostgreSQL CPU per order / minimal = %.1fx   (goal <= 3x: %s)%n",
                            cpuRatio, met(cpuRatio <= 3));
                    out.printf("  WAL per order / minimal = %.1fx   (goal <= 2x: %s)%n", walRatio, met(walRatio <= 2));
                } else {
                    out.println(
                            "minimal order batch: not measured (pgbench is missing: apt-get install postgresql-client)");
                }
            }
            if (parts.contains("admission")) {
                out.printf("EVALSHA reserve.lua, %d connections: %,10.0f reservations/s%n", concurrency, evalsha);
                out.printf("HTTP API port, %d clients:           %,10.0f reservations/s%n", concurrency, http);
                out.printf("  API port / EVALSHA = %.2fx%n", http / evalsha);
                if (!Double.isNaN(entry)) {
                    out.printf("HTTP admission entry, %d clients:    %,10.0f reservations/s%n", concurrency, entry);
                    out.printf(
                            "  entry / EVALSHA = %.2fx   (goal >= 0.5x: %s)%n",
                            entry / evalsha, met(entry / evalsha >= 0.5));
                    out.printf("  entry / API port = %.2fx%n", entry / http);
                }
                if (paced != null) {
                    out.printf(
                            "  entry paced to %,.0f/s (EVALSHA / 4: half of the 0.5x goal): %,.0f admitted/s, p50 %.1f ms,"
                                    + " p99 %.1f ms   (goal p99 <= 10 ms at that rate: %s)%n",
                            paced.rate(), paced.admitted(), paced.p50Millis(), paced.p99Millis(), met(paced.met()));
                }
                if (pacedHalf != null) {
                    out.printf(
                            "  entry paced to %,.0f/s (half of its own rate): %,.0f admitted/s, p50 %.1f ms, p99 %.1f ms%n",
                            pacedHalf.rate(), pacedHalf.admitted(), pacedHalf.p50Millis(), pacedHalf.p99Millis());
                }
                if (!Double.isNaN(naive)) {
                    out.printf("naive baseline (design section 4):   %,10.0f orders/s%n", naive);
                    out.printf("  HTTP / naive = %.2fx   (goal >= 0.8x: %s)%n", http / naive, met(http / naive >= 0.8));
                }
            }
            sale.forEach(out::println);
            pipeline.ifPresent(r -> r.print(out));
            if (!cluster.isEmpty()) {
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
            drillReport.forEach(out::println);
            // the bench fails only when it could not measure; a goal not met is a finding, printed above
            boolean measured = (!consumer || (batched > 0 && single > 0 && ceiling > 0))
                    && (!parts.contains("admission") || (evalsha > 0 && http > 0 && !(entry <= 0)))
                    && pipeline.map(r -> r.orders() > 0).orElse(true)
                    && cluster.stream().allMatch(r -> r.perSecond() > 0);
            return measured ? 0 : 1;
        }
    }

    private static String met(boolean met) {
        return met ? "met" : "not met";
    }

    /** {@code --url}: wrk against a running instance's reservation endpoint, with buyers' tokens minted from its secret. */
    private int remote(PrintStream out) throws Exception {
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
        String target = url.replaceAll("/+$", "") + "/api/v1/activities/" + targetActivity + "/skus/" + targetSku
                + "/reservations";
        Path dir = Files.createTempDirectory("seckill-bench");
        long base = 10_000_000L + (System.currentTimeMillis() % 1_000_000) * 1_000;
        Path tokens = tokens(targetUserSecret, base, 250_000, dir);
        ExternalLoad.WrkResult r = ExternalLoad.wrk(wrk.get(), target, tokens, concurrency, seconds, dir);
        out.printf(
                "[remote] %s: %,.0f admitted/s of %,.0f answers/s, statuses %s, latency p50 %.1f ms p99 %.1f ms%n",
                target, r.admittedPerSecond(), r.requestsPerSecond(), r.statuses(), r.p50Millis(), r.p99Millis());
        return r.answers() > 0 ? 0 : 1;
    }

    private Map<String, Object> baseProperties(EmbeddedEngines engines) {
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
    private Map<String, Object> webProperties(EmbeddedEngines engines) {
        Map<String, Object> p = baseProperties(engines);
        p.put("server.port", "0");
        p.put("server.address", "127.0.0.1");
        return p;
    }

    /** Starts the bench's web application with the naive baseline's endpoint beside the engine's; --app-property last. */
    private ConfigurableApplicationContext run(Map<String, Object> p) {
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
    private Path freshBuyers(int runSeconds, Path dir) throws IOException {
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
    private static Path tokens(String secret, long firstUser, int n, Path dir) throws IOException {
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
    private static void openSale(
            ActivityService activities, long activityId, String name, BigDecimal price, int stock) {
        openSale(activities, activityId, name, price, stock, 1);
    }

    /** Creates, warms and opens a one-SKU sale of {@code buckets} buckets in the running application. */
    private static void openSale(
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

    /** Pre-loads a topic with {@code n} order messages for one hot SKU, then times a consumer draining it. */
    private double consumerRun(EmbeddedEngines engines, String label, int n, int batch) throws Exception {
        long activityId = 700_000
                + switch (label) {
                    case "batched" -> 1;
                    case "single" -> 2;
                    default -> 6;
                };
        String topic = "BENCH_ORDER_" + label.toUpperCase() + "_" + System.currentTimeMillis();
        Map<String, Object> p = baseProperties(engines);
        p.put("seckill.roles", "order-consumer");
        p.put("seckill.mq.order-request-topic", topic);
        p.put("seckill.mq.order-consumer-group", "bench-" + label + "-" + System.currentTimeMillis());
        p.put("seckill.order-consumer.batch-size", Integer.toString(batch));
        p.put("seckill.order-consumer.threads", Integer.toString(threads));
        createActivity(engines, p, activityId, n);
        preload(engines, topic, activityId, n);
        new BenchRepository(engines.jdbcUrl()).settle();
        StatementTimes.reset(engines.jdbcUrl());
        System.out.printf("[%s] %d messages pre-loaded on %s; starting the consumer%n", label, n, topic);
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(SeckillApplication.class)
                .web(WebApplicationType.NONE)
                .properties(p)
                .run()) {
            ReservationRepository reservations = app.getBean(ReservationRepository.class);
            var meters = app.getBean(io.micrometer.core.instrument.MeterRegistry.class);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            // timed from the first settled order to the last: consumer start-up and rebalance are not throughput.
            // Progress is the consumer's own count, read in this JVM: a count(*) in PostgreSQL every 10 ms would add
            // its own cost to the database's per order
            long first = 0;
            long t0 = 0;
            CpuSplit cpu0 = null;
            long done;
            while ((done = settled(meters)) < n) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            label + ": consumer did not drain " + n + " messages in 10 minutes");
                }
                if (t0 == 0 && done > 0) {
                    t0 = System.nanoTime();
                    cpu0 = cpuNow(engines);
                    first = done;
                }
                TimeUnit.MILLISECONDS.sleep(10);
            }
            double rate = (n - first) / ((System.nanoTime() - t0) / 1e9);
            String cpu = cpuNow(engines).since(cpu0, n - first);
            long decided = reservations.decided(activityId);
            if (decided != n) {
                throw new IllegalStateException(label + ": the consumer counted " + done
                        + " messages settled, PostgreSQL has " + decided + " reservations decided of " + n);
            }
            var sizes = meters.summary("order.consume.batch.size");
            System.out.printf(
                    "[%s] %,.0f orders/s (%d deliveries, mean %.1f messages each); %s%n",
                    label, rate, sizes.count(), sizes.mean(), cpu);
            StatementTimes.print(engines.jdbcUrl(), n);
            return rate;
        }
    }

    private void createActivity(EmbeddedEngines engines, Map<String, Object> p, long activityId, int stock)
            throws Exception {
        Map<String, Object> q = new HashMap<>(p);
        q.put("seckill.roles", "api");
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(SeckillApplication.class)
                .web(WebApplicationType.NONE)
                .properties(q)
                .run()) {
            app.getBean(ActivityService.class)
                    .create(new ActivityService.NewActivity(
                            activityId,
                            "bench " + activityId,
                            Instant.now().minusSeconds(5),
                            Instant.now().plusSeconds(3600),
                            600,
                            900,
                            List.of(new ActivityService.NewSku(1L, new BigDecimal("9.90"), stock, 1))));
        }
    }

    private List<OrderCreateRequested> messages(long activityId, int n) {
        ReservationIds ids = new ReservationIds(Map.of(1, idKey));
        long now = System.currentTimeMillis();
        List<OrderCreateRequested> out = new ArrayList<>(n);
        for (int u = 1; u <= n; u++) {
            UUID request = UUID.randomUUID();
            UUID rid = ids.reservationId(1, activityId, 1, u, request);
            out.add(OrderCreateRequested.of(ids.messageId(1, rid), request, rid, activityId, 1, u, now, now + 600_000));
        }
        return out;
    }

    private void preload(EmbeddedEngines engines, String topic, long activityId, int n) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("bench-preload");
        producer.setNamesrvAddr(engines.namesrvAddress());
        producer.setInstanceName(MqClients.instanceName("bench"));
        producer.start();
        try {
            Semaphore inFlight = new Semaphore(1000);
            AtomicLong failed = new AtomicLong();
            for (OrderCreateRequested m : messages(activityId, n)) {
                inFlight.acquire();
                producer.send(OrderRequestSender.message(topic, m, 0), new SendCallback() {
                    @Override
                    public void onSuccess(SendResult r) {
                        inFlight.release();
                    }

                    @Override
                    public void onException(Throwable e) {
                        failed.incrementAndGet();
                        inFlight.release();
                    }
                });
            }
            inFlight.acquire(1000);
            if (failed.get() > 0) {
                throw new IllegalStateException(failed.get() + " pre-load sends failed");
            }
        } finally {
            producer.shutdown();
        }
    }

    /** Messages the order consumer of this JVM has settled (an outcome written to its inbox). */
    private static long settled(io.micrometer.core.instrument.MeterRegistry meters) {
        long n = 0;
        for (io.seckill.order.MessageOutcome o : io.seckill.order.MessageOutcome.values()) {
            var c = o.inboxResult() == null
                    ? null
                    : meters.find("order.consume")
                            .tag("result", o.name().toLowerCase())
                            .counter();
            n += c == null ? 0 : (long) c.count();
        }
        return n;
    }

    private static CpuSplit cpuNow(EmbeddedEngines engines) {
        return CpuSplit.now(engines.home().resolve("pgdata"), engines.broker().pid());
    }

    /** What the last measured {@link #sqlCeiling} run wrote to the WAL per order. */
    private WalMeter.Cost ceilingWal;

    /** The minimal order batch with pgbench, batch and clients as the consumer's, on the same database. */
    private Optional<SqlAnchor.Result> anchor(EmbeddedEngines engines) throws Exception {
        System.out.printf(
                "[minimal] pgbench, minimal order batch of %d, %d clients, %d s%n", batchSize, threads, anchorSeconds);
        Optional<SqlAnchor.Result> r = SqlAnchor.run(
                "127.0.0.1",
                engines.postgresPort(),
                engines.jdbcUrl(),
                engines.home().resolve("pgdata"),
                threads,
                batchSize,
                anchorSeconds);
        r.ifPresentOrElse(
                a -> System.out.printf("[minimal] %,.0f orders/s; %s%n", a.ordersPerSecond(), a.wal()),
                () -> System.out.println("[minimal] skipped: pgbench is missing (apt-get install postgresql-client)"));
        return r;
    }

    /** The consumer's batch transaction driven directly from {@code threads} threads: no broker in the way. */
    private double sqlCeiling(EmbeddedEngines engines, int n, long activityId, String label) throws Exception {
        Map<String, Object> p = baseProperties(engines);
        p.put("seckill.roles", "api");
        createActivity(engines, p, activityId, n);
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(SeckillApplication.class)
                .web(WebApplicationType.NONE)
                .properties(p)
                .run()) {
            OrderBatchService service = app.getBean(OrderBatchService.class);
            List<OrderCreateRequested> all = messages(activityId, n);
            List<List<InboundOrder>> batches = new ArrayList<>();
            for (int i = 0; i < all.size(); i += batchSize) {
                batches.add(all.subList(i, Math.min(all.size(), i + batchSize)).stream()
                        .map(m -> InboundOrder.of(m, Json.bytes(m), "ceiling"))
                        .toList());
            }
            new BenchRepository(engines.jdbcUrl()).settle();
            WalMeter wal = new WalMeter(engines.jdbcUrl(), engines.home().resolve("pgdata"));
            StatementTimes.reset(engines.jdbcUrl());
            WalMeter.Reading before = wal.read();
            CpuSplit cpu0 = cpuNow(engines);
            long t0 = System.nanoTime();
            try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
                List<Future<?>> fs = new ArrayList<>();
                for (List<InboundOrder> b : batches) {
                    fs.add(pool.submit(() -> service.process(b)));
                }
                for (Future<?> f : fs) {
                    f.get();
                }
            }
            double rate = n / ((System.nanoTime() - t0) / 1e9);
            ceilingWal = wal.read().since(before, n);
            StatementTimes.print(engines.jdbcUrl(), n);
            System.out.printf(
                    "[%s] %,.0f orders/s; %s; %s%n",
                    label, rate, cpuNow(engines).since(cpu0, n), ceilingWal);
            return rate;
        }
    }

    /** The HTTP answer latencies of the measured runs, drawn at the end. */
    private final LatencyCharts latencies = new LatencyCharts();

    /** A sustained run through the whole pipeline: admission, send path, order consumer. */
    record PipelineResult(Sustained unpaced, Sustained paced, Duration waitTarget, Duration maxOrderBacklogAge) {

        long orders() {
            return unpaced.orders() + paced.orders();
        }

        void print(PrintStream out) {
            out.printf(
                    "pipeline, %d s sustained (admission entry, send path, order consumer in one process):%n",
                    unpaced.seconds());
            unpaced.print(out);
            out.printf(
                    "  send path: breaker paused %d times, oldest unsent max %.1f s   (goal no pause, <= 1 s: %s)%n",
                    unpaced.sendTrips(),
                    unpaced.oldestUnsentSeconds(),
                    met(unpaced.sendTrips() == 0 && unpaced.oldestUnsentSeconds() <= 1.0));
            out.printf(
                    "  order backlog: the entry paused %d times for consumers more than %s behind%s%n",
                    unpaced.backlogTrips(),
                    maxOrderBacklogAge.isZero() ? "(off)" : maxOrderBacklogAge.toSeconds() + " s",
                    unpaced.backlogTrips() == 0 ? "" : " (its 503s are the non-202 statuses above)");
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
            long turnedAway) {

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
                    met(p99 <= 1.0));
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
    private PipelineResult pipeline(EmbeddedEngines engines) throws Exception {
        Map<String, Object> p = webProperties(engines);
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
        emptyRedis(engines, "pipeline");
        try (ConfigurableApplicationContext app = run(p)) {
            ActivityService activities = app.getBean(ActivityService.class);
            openSale(activities, activity, "bench pipeline", BigDecimal.ONE, 50_000_000);
            openSale(activities, pacedActivity, "bench pipeline, paced", BigDecimal.ONE, 50_000_000);
            int port = app.getBean(AdmissionEntry.class).port();
            int apiPort = ((WebServerApplicationContext) app).getWebServer().getPort();
            String url = "http://127.0.0.1:" + port + "/api/v1/activities/" + activity + "/skus/1/reservations";
            System.out.printf(
                    "[pipeline] %d s of admission with the send path and the order consumer behind it%n",
                    pipelineSeconds);
            // the consumer of a fresh topic starts cold (queue assignment, the first pulls): a warm-up first, and only
            // what is reserved in the measured window counts
            int pipelineWarmup = Math.max(5, Math.min(warmup, 20));
            Path warmTokens = freshBuyers(pipelineWarmup, engines.home());
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
        Path tokens = freshBuyers(seconds, engines.home());
        Instant measuredFrom = Instant.now();
        SendPathWatch watch = new SendPathWatch(app);
        AdmissionBreaker breaker = app.getBean(AdmissionBreaker.class);
        var meters = app.getBean(io.micrometer.core.instrument.MeterRegistry.class);
        long trips0 = breaker.trips(AdmissionBreaker.Cause.SEND);
        long backlogTrips0 = breaker.trips(AdmissionBreaker.Cause.ORDER_BACKLOG);
        double away0 = meters.counter("reservation.rate_limited", "scope", "order_pace")
                .count();
        CpuSplit cpu0 = cpuNow(engines);
        StatementTimes.reset(engines.jdbcUrl());
        ExternalLoad.WrkResult r = ExternalLoad.wrk(wrk, url, tokens, concurrency, seconds, engines.home());
        // the whole pipeline shares the cores with wrk: what each admitted reservation cost while wrk ran (the
        // machine's
        // figure holds Redis, wrk and what the other three leave out)
        String cpu = cpuNow(engines)
                .since(cpu0, r.statuses().getOrDefault(202, 0L))
                .replace("CPU per order", "CPU per admitted reservation while wrk ran");
        long trips = breaker.trips(AdmissionBreaker.Cause.SEND) - trips0;
        long backlogTrips = breaker.trips(AdmissionBreaker.Cause.ORDER_BACKLOG) - backlogTrips0;
        long turnedAway = (long) (meters.counter("reservation.rate_limited", "scope", "order_pace")
                        .count()
                - away0);
        double oldest = watch.maxOldestSeconds();
        String sendPath = watch.sinceLast();
        watch.close();
        latencies.add("with the order consumer" + label + ", " + seconds + " s", r.latency());
        long admitted = r.statuses().getOrDefault(202, 0L) + admittedBefore;
        ReservationRepository reservations = app.getBean(ReservationRepository.class);
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
                turnedAway);
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
        openSale(activities, ours, "bench drill", BigDecimal.ONE, FaultDrill.UNITS);
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

    /**
     * A sale's shape at the admission entry: {@link #saleUnits} units over 1 and then 4 buckets, a flood of distinct
     * buyers for {@link #seconds} - nearly all of them answered SOLD_OUT, most from the instance's memory - beside
     * the entry's floor, the same load answered from memory after the same token check (a sale that does not
     * exist: the catalogue answers 404 without a query). Each run starts from an empty Redis. Returns the summary's
     * lines; {@code admittedPerSecond} is the admission part's entry rate (NaN when it did not run).
     */
    private List<String> saleFlood(EmbeddedEngines engines, double admittedPerSecond) throws Exception {
        Optional<Path> wrk = ExternalLoad.tool("wrk");
        if (wrk.isEmpty()) {
            return List.of("sale flood: not measured (wrk is missing: apt-get install wrk)");
        }
        Map<String, Object> p = webProperties(engines);
        p.put("seckill.roles", "api,send-due-scanner");
        p.put("seckill.admission.entry-port", "0");
        p.put("seckill.admission.max-order-backlog-age", "0s");
        List<String> lines = new ArrayList<>();
        try (ConfigurableApplicationContext app = run(p)) {
            int entryPort = app.getBean(AdmissionEntry.class).port();
            Path floorTokens = freshBuyers(seconds, engines.home());
            String unknown = "http://127.0.0.1:" + entryPort + "/api/v1/activities/999999999/skus/1/reservations";
            ExternalLoad.wrk(wrk.get(), unknown, floorTokens, concurrency, warmup, engines.home());
            Observed floor = observe(
                    app,
                    true,
                    () -> ExternalLoad.wrk(wrk.get(), unknown, floorTokens, concurrency, seconds, engines.home()));
            double floorRate = floor.wrk().requestsPerSecond();
            double floorCpu =
                    floor.cpuNanos() / 1000.0 / Math.max(1, floor.wrk().answers());
            System.out.printf(
                    "[sale] floor (an unknown sale, from memory after the token check): %,.0f answers/s, statuses %s, "
                            + "%.0f us of application CPU per answer%n",
                    floorRate, floor.wrk().statuses(), floorCpu);
            lines.add(String.format(
                    "sale flood at the admission entry, %d clients, %,d units, %d s each:",
                    concurrency, saleUnits, seconds));
            lines.add(String.format(
                    "  floor: an unknown sale answered 404 from memory: %,10.0f answers/s, %.0f us CPU per answer",
                    floorRate, floorCpu));
            ActivityService activities = app.getBean(ActivityService.class);
            for (int buckets : new int[] {1, 4}) {
                emptyRedis(engines, "sale");
                long activity = 700_200 + buckets;
                openSale(activities, activity, "bench sale " + buckets, BigDecimal.ONE, saleUnits, buckets);
                String url =
                        "http://127.0.0.1:" + entryPort + "/api/v1/activities/" + activity + "/skus/1/reservations";
                Path tokens = freshBuyers(seconds, engines.home());
                Observed run = observe(
                        app,
                        true,
                        () -> ExternalLoad.wrk(wrk.get(), url, tokens, concurrency, seconds, engines.home()));
                ExternalLoad.WrkResult r = run.wrk();
                long admitted = r.statuses().getOrDefault(202, 0L);
                long soldOut = r.statuses().getOrDefault(409, 0L);
                double refusals = soldOut / (double) seconds;
                double cpu = run.cpuNanos() / 1000.0 / Math.max(1, r.answers());
                latencies.add("sale flood, " + buckets + " bucket(s), " + seconds + " s", r.latency());
                System.out.printf(
                        "[sale] %d bucket(s): statuses %s, %,.0f answers/s, p50 %.1f ms p99 %.1f ms, %.0f us of "
                                + "application CPU per answer; %s%n",
                        buckets, r.statuses(), r.requestsPerSecond(), r.p50Millis(), r.p99Millis(), cpu, run.redis());
                lines.add(String.format(
                        "  %d bucket(s): %,d admitted (of %,d units), %,10.0f SOLD_OUT/s, %.0f us CPU per answer, p99 %.1f ms",
                        buckets, admitted, saleUnits, refusals, cpu, r.p99Millis()));
                lines.add(String.format(
                        "    refusals / floor = %.2fx   (goal >= 0.8x: %s)",
                        refusals / floorRate, met(refusals / floorRate >= 0.8)));
                if (!Double.isNaN(admittedPerSecond)) {
                    lines.add(String.format(
                            "    refusals / the entry's admissions = %.2fx   (goal >= 3x: %s)",
                            refusals / admittedPerSecond, met(refusals / admittedPerSecond >= 3)));
                }
                if (admitted != saleUnits) {
                    lines.add(String.format(
                            "    admitted %,d, not the %,d units: the run did not sell out (or oversold)",
                            admitted, saleUnits));
                }
            }
        }
        return lines;
    }

    /** {EVALSHA reservations/s, HTTP reservations/s}, both at {@link #concurrency}. */
    private double[] admission(EmbeddedEngines engines) throws Exception {
        Map<String, Object> p = webProperties(engines);
        // the API and the send path behind it (the rescan too): admission is only real if its messages leave
        p.put("seckill.roles", "api,send-due-scanner");
        long evalActivity = 700_004;
        long httpActivity = 700_005;
        long entryActivity = 700_011;
        int huge = 50_000_000;
        // the lean admission entry beside the API port, on a port of its own
        p.put("seckill.admission.entry-port", "0");
        // admission is measured alone: no order consumer takes these messages, so the entry's pause for an order
        // backlog would stop every run after its first seconds (the pipeline run keeps it, with its consumer)
        p.put("seckill.admission.max-order-backlog-age", "0s");
        try (ConfigurableApplicationContext app = run(p)) {
            ActivityService activities = app.getBean(ActivityService.class);
            for (long a : new long[] {evalActivity, httpActivity, entryActivity}) {
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
                http = wrkAdmission("http", app, wrk.get(), engines, port, httpActivity);
                naive = naiveRun(app, wrk.get(), port, engines);
                int entryPort = app.getBean(AdmissionEntry.class).port();
                activities.open(entryActivity);
                entry = wrkAdmission("entry", app, wrk.get(), engines, entryPort, entryActivity);
                paced = pacedEntry(app, wrk.get(), engines, entryPort, entryActivity, evalsha / 4);
                // and at half of what the entry itself sustained: its latency with headroom, whatever the goal's rate
                pacedHalf = pacedEntry(app, wrk.get(), engines, entryPort, entryActivity, entry / 2);
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
            long activity)
            throws Exception {
        String url = "http://127.0.0.1:" + port + "/api/v1/activities/" + activity + "/skus/1/reservations";
        Path warmupTokens = freshBuyers(warmup, engines.home());
        try (SendPathWatch watch = new SendPathWatch(app)) {
            ExternalLoad.WrkResult warm = ExternalLoad.wrk(wrk, url, warmupTokens, concurrency, warmup, engines.home());
            System.out.printf(
                    "[%s] warm-up %d s: %,.0f admitted/s of %,.0f answers/s, statuses %s; %s%n",
                    label,
                    warmup,
                    warm.admittedPerSecond(),
                    warm.requestsPerSecond(),
                    warm.statuses(),
                    watch.sinceLast());
            Path tokens = freshBuyers(seconds, engines.home());
            Observed run = observe(
                    app,
                    label.equals("entry"),
                    () -> ExternalLoad.wrk(wrk, url, tokens, concurrency, seconds, engines.home()));
            ExternalLoad.WrkResult measured = run.wrk();
            latencies.add(
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

    /** A Redis call whose execution inside redis-server took this long or longer is counted as slow (its slow log). */
    private static final Duration SLOW_REDIS_CALL = Duration.ofMillis(1);

    /**
     * One wrk run and what the application saw during it: its CPU, the entry's own answer times (null when
     * the run was not against the entry), Redis's slow calls.
     */
    private record Observed(ExternalLoad.WrkResult wrk, long cpuNanos, String inEntry, String redis) {}

    private static Observed observe(
            ConfigurableApplicationContext app, boolean entry, Callable<ExternalLoad.WrkResult> wrkRun)
            throws Exception {
        EntryAnswerTimes inEntry = entry ? new EntryAnswerTimes(app) : null;
        try (RedisSlowCalls slowLog =
                new RedisSlowCalls(app.getBean(Redis.class).sync(), SLOW_REDIS_CALL)) {
            long cpu0 = CpuMeter.selfNanos();
            ExternalLoad.WrkResult r = wrkRun.call();
            long cpu = CpuMeter.selfNanos() - cpu0;
            return new Observed(
                    r,
                    cpu,
                    inEntry == null ? null : inEntry.sinceStart(),
                    slowLog.read().describe(r.answers(), SLOW_REDIS_CALL));
        }
    }

    /** The entry at a load fixed in advance: the rate asked for, what was admitted, and the latency. */
    private record Paced(double rate, double admitted, double p50Millis, double p99Millis) {
        /** The goal: p99 <= 10 ms, at the rate asked for (a server that fell behind the pace did not meet it). */
        boolean met() {
            return p99Millis <= 10 && admitted >= 0.95 * rate;
        }
    }

    /** Measured by {@link #admission} after the entry's unpaced run (at EVALSHA / 4, at half the entry's rate); null without wrk. */
    private Paced paced;

    private Paced pacedHalf;

    /**
     * The entry's latency at a quarter of the EVALSHA rate - half of the 0.5x goal, the load at which the
     * goal asks for p99 <= 10 ms - paced by wrk rather than as fast as answers come.
     */
    private Paced pacedEntry(
            ConfigurableApplicationContext app, Path wrk, EmbeddedEngines engines, int port, long activity, double rate)
            throws Exception {
        String url = "http://127.0.0.1:" + port + "/api/v1/activities/" + activity + "/skus/1/reservations";
        Path tokens = freshBuyers(seconds, engines.home());
        try (SendPathWatch watch = new SendPathWatch(app)) {
            Observed run = observe(
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
            latencies.add(String.format("admission entry paced to %,.0f/s, %d s", rate, seconds), r.latency());
            return new Paced(rate, r.admittedPerSecond(), r.p50Millis(), r.p99Millis());
        }
    }

    /** Orders/s of the naive baseline (HTTP 200s), measured by {@link #admission} right after the engine's own run. */
    private double naive = Double.NaN;

    private static SpringApplicationBuilder withNaiveBaseline(SpringApplicationBuilder builder) {
        return builder.initializers(
                ctx -> NaiveBaseline.register((org.springframework.context.support.GenericApplicationContext) ctx));
    }

    /** The naive baseline under the same wrk load as the engine's run, on a stock that cannot run out. */
    private double naiveRun(ConfigurableApplicationContext app, Path wrk, int port, EmbeddedEngines engines)
            throws Exception {
        long activity = 700_006;
        app.getBean(Redis.class).sync().set(NaiveBaseline.stockKey(activity, 1), "50000000");
        String url = "http://127.0.0.1:" + port
                + NaiveBaseline.PATH
                        .replace("{activityId}", Long.toString(activity))
                        .replace("{skuId}", "1");
        Path tokens = tokens(userSecret, 5_000_000L, 250_000, engines.home());
        ExternalLoad.WrkResult r = ExternalLoad.wrk(wrk, url, tokens, concurrency, seconds, engines.home());
        double ordered = r.requestsPerSecond() * r.statuses().getOrDefault(200, 0L) / Math.max(1, r.answers());
        System.out.printf(
                "[naive] design section 4's baseline (GET, DECR, check then synchronous INSERT): %,.0f orders/s "
                        + "of %,.0f answers/s, statuses %s, latency p50 %.1f ms p99 %.1f ms%n",
                ordered, r.requestsPerSecond(), r.statuses(), r.p50Millis(), r.p99Millis());
        latencies.add("naive baseline (design section 4), " + seconds + " s", r.latency());
        return ordered;
    }

    /**
     * The part starts on an empty Redis, as a sale does: the admission part leaves a million or so
     * reservations behind (three keys each, never sent on), which filled the engines' 1 GB once the entry
     * got faster. Nothing else uses Redis between parts; the next part's sales are warmed from PostgreSQL.
     */
    private static void emptyRedis(EmbeddedEngines engines, String part) {
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
