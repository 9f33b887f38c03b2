package io.seckill.bench;

import io.seckill.SeckillApplication;
import io.seckill.activity.ActivityService;
import io.seckill.engines.EmbeddedEngines;
import io.seckill.json.Json;
import io.seckill.mq.MqClients;
import io.seckill.order.InboundOrder;
import io.seckill.order.OrderBatchService;
import io.seckill.reservation.OrderCreateRequested;
import io.seckill.reservation.OrderRequestSender;
import io.seckill.reservation.ReservationIds;
import io.seckill.reservation.Reservations;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The bench's consumer part: the order consumer draining pre-loaded messages, batched and one per transaction,
 * beside the same batch SQL driven without a broker (the ceiling) and the minimal order batch with pgbench.
 */
final class ConsumerPart {

    private final BenchCommand bench;

    private final EmbeddedEngines engines;

    private final int orders;

    private final int singleOrders;

    private final int batchSize;

    private final int threads;

    private final int anchorSeconds;

    private final String idKey;

    private double ceiling;

    private Optional<SqlAnchor.Result> anchor;

    private double batched;

    private double single;

    ConsumerPart(BenchCommand bench, EmbeddedEngines engines) {
        this.bench = bench;
        this.engines = engines;
        this.orders = bench.orders;
        this.singleOrders = bench.singleOrders;
        this.batchSize = bench.batchSize;
        this.threads = bench.threads;
        this.anchorSeconds = bench.anchorSeconds;
        this.idKey = bench.idKey;
    }

    /** The runs, in the order that leaves every measured one on compiled code. */
    ConsumerPart measure() throws Exception {
        // On two cores the JIT compiler competes with the run for a core: the ceiling and a warm-up
        // drain run first, so every measured run uses compiled code.
        sqlCeiling(engines, Math.max(5_000, orders / 3), 700_007, "ceiling warm-up");
        consumerRun(engines, "warmup", Math.max(5_000, orders / 3), batchSize);
        ceiling = sqlCeiling(engines, orders, 700_003, "ceiling");
        anchor = anchor(engines);
        batched = consumerRun(engines, "batched", orders, batchSize);
        single = consumerRun(engines, "single", singleOrders, 1);
        System.out.printf(
                "[consumer] %,d order events of the consumer runs retired from the outbox (nothing reads them)%n",
                new BenchRepository(engines.jdbcUrl()).retireUnsentEvents());
        return this;
    }

    /** Whether every run measured something. */
    boolean measured() {
        return batched > 0 && single > 0 && ceiling > 0;
    }

    /** The minimal order batch's PostgreSQL CPU per order in microseconds, NaN when pgbench did not run. */
    double minimalCpuMicros() {
        return anchor.map(a -> a.wal().cpuMicros()).orElse(Double.NaN);
    }

    /** The part's lines of the summary, with its goals met or not. */
    void print(PrintStream out) {
        out.printf("consumer, batch %d, %d threads:      %,10.0f orders/s%n", batchSize, threads, batched);
        out.printf("consumer, one message per tx:       %,10.0f orders/s%n", single);
        out.printf("ceiling: same batch SQL, no broker: %,10.0f orders/s%n", ceiling);
        out.printf(
                "  batched / per-message = %.1fx   (goal >= 10x: %s)%n",
                batched / single, BenchCommand.met(batched / single >= 10));
        out.printf(
                "  batched / SQL ceiling = %.2fx   (goal >= 0.8x: %s)%n",
                batched / ceiling, BenchCommand.met(batched / ceiling >= 0.8));
        if (anchor.isPresent()) {
            double minimal = anchor.get().ordersPerSecond();
            out.printf("minimal order batch (pgbench):      %,10.0f orders/s%n", minimal);
            out.printf(
                    "  consumer batch SQL / minimal = %.2fx   (goal >= 0.4x: %s)%n",
                    ceiling / minimal, BenchCommand.met(ceiling / minimal >= 0.4));
            out.printf("  consumer batch SQL: %s%n", ceilingWal);
            out.printf("  minimal batch:      %s%n", anchor.get().wal());
            WalMeter.Cost least = anchor.get().wal();
            double cpuRatio = ceilingWal.cpuMicros() / least.cpuMicros();
            double walRatio = ceilingWal.bytes() / least.bytes();
            out.printf(
                    "  PostgreSQL CPU per order / minimal = %.1fx   (goal <= 3x: %s)%n",
                    cpuRatio, BenchCommand.met(cpuRatio <= 3));
            out.printf(
                    "  WAL per order / minimal = %.1fx   (goal <= 2x: %s)%n",
                    walRatio, BenchCommand.met(walRatio <= 2));
        } else {
            out.println("minimal order batch: not measured (pgbench is missing: apt-get install postgresql-client)");
        }
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
        Map<String, Object> p = bench.baseProperties(engines);
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
            Reservations reservations = app.getBean(Reservations.class);
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
                    cpu0 = BenchCommand.cpuNow(engines);
                    first = done;
                }
                TimeUnit.MILLISECONDS.sleep(10);
            }
            double rate = (n - first) / ((System.nanoTime() - t0) / 1e9);
            String cpu = BenchCommand.cpuNow(engines).since(cpu0, n - first);
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
        Map<String, Object> p = bench.baseProperties(engines);
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
            CpuSplit cpu0 = BenchCommand.cpuNow(engines);
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
                    label, rate, BenchCommand.cpuNow(engines).since(cpu0, n), ceilingWal);
            return rate;
        }
    }

    private static void createActivity(EmbeddedEngines engines, Map<String, Object> p, long activityId, int stock)
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
}
