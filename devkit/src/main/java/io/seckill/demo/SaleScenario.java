package io.seckill.demo;

import io.lettuce.core.RedisException;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.ActivityService;
import io.seckill.api.Tokens;
import io.seckill.cli.SaleClient;
import io.seckill.failpoint.Failpoints;
import io.seckill.invariants.InvariantChecker;
import io.seckill.order.Orders;
import io.seckill.payment.Payments;
import io.seckill.paysim.PaySim;
import io.seckill.reservation.Reservations;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.springframework.context.ApplicationContext;

/**
 * One flash sale driven over HTTP: create, warm and open an activity, let simulated buyers race
 * for the units (some resend the same request, some try again with a new request id), wait for
 * the pipeline to drain, and check every invariant.
 */
public final class SaleScenario {

    private final ApplicationContext app;
    /** The instances buyers are spread over (by user id); the first also takes the operator's calls. */
    private final List<SaleClient> instances;

    private final List<String> urls;
    private final AtomicLong[] answeredBy;
    private final SaleClient client;
    private final String userSecret;
    private final String adminToken;
    private final Map<String, String> chaos;
    private final PaySim sim;
    /** Where the sale's progress line goes. */
    private final PrintStream console;

    private final java.util.concurrent.ScheduledExecutorService afterSale = Executors.newScheduledThreadPool(16);
    private final List<Future<?>> afterSaleWork = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Map<String, AtomicLong> behaviour = new ConcurrentHashMap<>();
    /** The buyers' answers by code: first attempts, the same request resent, a new request by the same buyer. */
    private final Map<String, AtomicLong> first = new ConcurrentHashMap<>();

    private final Map<String, AtomicLong> replay = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> retry = new ConcurrentHashMap<>();
    /** Reservation ids answered QUEUED. */
    private final Set<String> queued = ConcurrentHashMap.newKeySet();

    private final AtomicLong mismatches = new AtomicLong();
    private final List<String> mismatchExamples = java.util.Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong requests = new AtomicLong();
    private final ConcurrentHistogram latency = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(5), 3);

    /** Orders not paid within this many seconds are cancelled and their units released. */
    static final int PAYMENT_TIMEOUT_SECONDS = 20;

    /** Runs once, on a thread of its own, when a third of the buyers have had their first answer (the sale goes on). */
    private Runnable midSale = () -> {};

    private final java.util.concurrent.CompletableFuture<Void> midSaleRun =
            new java.util.concurrent.CompletableFuture<>();
    private final AtomicLong firstAnswers = new AtomicLong();
    private final AtomicLong passedOver = new AtomicLong();
    private volatile long midPoint;
    /** The entry's counters summed over every instance (by default: the one in this JVM). */
    private java.util.function.Supplier<AdmissionCounters> admissionCounters;
    /** Per-node figures printed with the report (a cluster's masters and brokers). */
    private java.util.function.Supplier<List<String>> nodeFigures = List::of;

    /** {@code instances}: a buyer's client of each app instance (reserve calls to its admission entry). */
    public SaleScenario(
            ApplicationContext app,
            List<SaleClient> instances,
            String userSecret,
            String adminSecret,
            Map<String, String> chaos,
            PaySim sim,
            PrintStream console) {
        this.app = app;
        this.console = console;
        this.sim = sim;
        this.chaos = chaos;
        this.instances = List.copyOf(instances);
        this.urls = this.instances.stream().map(SaleClient::base).toList();
        this.answeredBy = new AtomicLong[urls.size()];
        java.util.Arrays.setAll(answeredBy, i -> new AtomicLong());
        this.client = instances.getFirst();
        this.admissionCounters = () -> AdmissionCounters.of(app.getBean(MeterRegistry.class));
        this.userSecret = userSecret;
        this.adminToken = Tokens.admin(adminSecret, "demo", Duration.ofHours(1));
    }

    /** What is on sale and who buys: SKUs, units per SKU, Redis buckets per SKU, buyers. */
    public record Shape(int skus, int unitsPerSku, int buckets, int users) {}

    public record Report(
            long activityId,
            Shape shape,
            Map<String, Long> firstAttempts,
            Map<String, Long> replays,
            Map<String, Long> retries,
            long replayMismatches,
            int queued,
            long terminal,
            Map<String, Long> reservationStates,
            Map<String, Long> orderStates,
            double seconds,
            long requests,
            long p50Micros,
            long p99Micros,
            long maxMicros,
            double drainSeconds,
            Map<String, Long> failpointsFired,
            long retriedAfterError,
            Map<String, Long> buyerBehaviour,
            Map<String, Long> payments,
            long released,
            long callbacksDelivered,
            long callbacksRefused,
            long callbacksLost,
            long admissionPaused,
            AdmissionCounters entry,
            long transfers,
            Map<String, Long> answersByInstance,
            long passedOver,
            List<String> nodes,
            List<InvariantChecker.Check> checks) {

        public boolean allPass() {
            return checks.stream().allMatch(InvariantChecker.Check::pass);
        }

        public void print(PrintStream out) {
            out.println();
            out.println("=== seckill sale report: activity " + activityId + " ===");
            out.printf(
                    "sale: %d SKUs x %d units in %d Redis bucket(s) each, %d buyers%n",
                    shape.skus(), shape.unitsPerSku(), shape.buckets(), shape.users());
            if (shape.buckets() > 1) {
                out.printf("units transferred to a buyer's empty home bucket: %d%n", transfers);
            }
            out.println("first attempts by outcome:   " + firstAttempts);
            out.println("same request resent:         " + replays
                    + (replayMismatches == 0 ? "" : "  MISMATCHES=" + replayMismatches));
            out.println("new request by same buyer:   " + retries);
            out.printf(
                    "requests: %d in %.2f s = %.0f req/s; latency p50 %.2f ms, p99 %.2f ms, max %.2f ms%n",
                    requests, seconds, requests / seconds, p50Micros / 1000.0, p99Micros / 1000.0, maxMicros / 1000.0);
            out.println(
                    "  (buyers are JVM HTTP clients sharing the cores with the engines, and the sale starts on a cold JVM:");
            out.println(
                    "   the JIT compiles the hot paths on about one core for most of the first minute; ./seckill bench");
            out.println("   measures the server after a warm-up)");
            if (!failpointsFired.isEmpty()) {
                out.println("chaos: failpoints fired " + failpointsFired + "; requests retried after a 500: "
                        + retriedAfterError);
            }
            out.printf(
                    "entry: %d answers 503 ADMISSION_PAUSED - %d while the breaker held admission (it opened %d times), %d "
                            + "because Redis did not answer in time (fail closed)%s%n",
                    admissionPaused,
                    entry.breakerRefusals(),
                    entry.trips(),
                    entry.redisRefusals(),
                    failpointsFired.isEmpty() && admissionPaused > 0 ? "  <- with no fault injected" : "");
            out.printf("pipeline drained %.2f s after the last request%n", drainSeconds);
            out.println("reservations (PostgreSQL):   " + reservationStates);
            out.println("orders (PostgreSQL):         " + orderStates);
            out.println("winners then:                " + buyerBehaviour);
            out.println("payments (PostgreSQL):       " + payments
                    + "  (SUCCESS kept, REFUNDED = money taken after the cancel," + " given back)");
            out.printf(
                    "units released by cancels: %d (PostgreSQL ledger; Redis follows, see the cross-system check);"
                            + " channel callbacks delivered %d, answered non-2xx %d, never sent %d (found in the channel's statement)%n",
                    released, callbacksDelivered, callbacksRefused, callbacksLost);
            out.printf("QUEUED answered: %d, terminal now: %d%n", queued, terminal);
            if (answersByInstance.size() > 1) {
                out.println("buyers' answers by instance:  " + answersByInstance
                        + "; calls passed to the next instance " + "while one was down: " + passedOver);
            }
            nodes.forEach(line -> out.println(line));
            out.println("invariants:");
            for (InvariantChecker.Check c : checks) {
                out.printf("  [%s] %s  (%s)%n", c.pass() ? "PASS" : "FAIL", c.name(), c.detail());
            }
            out.println(allPass() ? "RESULT: PASS" : "RESULT: FAIL");
        }
    }

    public Report run(long activityId, Shape shape, int concurrency, Duration drainTimeout) throws Exception {
        setUp(activityId, shape);
        chaos.forEach(Failpoints::arm);
        AdmissionCounters entryBefore = admissionCounters.get();
        try (Progress progress = new Progress(
                console,
                System.console() != null,
                requests::get,
                queued::size,
                () -> app.getBean(Reservations.class).decided(activityId),
                () -> app.getBean(Orders.class).countByStatus(activityId),
                app.getBean(MeterRegistry.class))) {
            progress.phase("buying");
            return sale(activityId, shape, concurrency, drainTimeout, progress, entryBefore);
        }
    }

    private Report sale(
            long activityId,
            Shape shape,
            int concurrency,
            Duration drainTimeout,
            Progress progress,
            AdmissionCounters entryBefore)
            throws Exception {
        long t0 = System.nanoTime();
        midPoint = Math.max(1, shape.users() / 3);
        try (ExecutorService pool = Executors.newFixedThreadPool(concurrency)) {
            List<Future<?>> all = new ArrayList<>(shape.users());
            for (int u = 1; u <= shape.users(); u++) {
                long userId = u;
                all.add(pool.submit(() -> {
                    buyer(activityId, shape.skus(), userId);
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get();
            }
        }
        midSaleRun.get(10, TimeUnit.MINUTES);
        double seconds = (System.nanoTime() - t0) / 1e9;
        AdmissionCounters entry = admissionCounters.get().since(entryBefore);
        long paused = java.util.stream.Stream.of(first, replay, retry)
                .mapToLong(m ->
                        m.getOrDefault("ADMISSION_PAUSED", new AtomicLong()).get())
                .sum();
        progress.phase("paying");
        for (int i = 0; i < afterSaleWork.size(); i++) {
            afterSaleWork.get(i).get();
        }
        afterSale.shutdown();
        Failpoints.disarmAll();

        progress.phase("draining");
        long drainStart = System.nanoTime();
        InvariantChecker checker = app.getBean(InvariantChecker.class);
        ActivityService activities = app.getBean(ActivityService.class);
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        long terminal;
        int redisWaits = 0;
        while (true) {
            // PostgreSQL's states first, Redis's after: final states do not move again, so a projection read after
            // them has seen every change they made (read the other way round, a cancel committed between the two
            // reads would count as drained before Redis released its unit)
            terminal = checker.terminal(queued);
            Map<String, Long> orders = app.getBean(Orders.class).countByStatus(activityId);
            boolean ordersFinal = orders.keySet().stream().allMatch(st -> st.equals("PAID") || st.equals("CANCELLED"));
            // every payment taken after a cancel has come back through its callback and been refunded
            Map<String, Long> payments = app.getBean(Payments.class).paymentCounts(activityId);
            boolean refundsDone = !payments.containsKey("REFUNDING")
                    && payments.getOrDefault("REFUNDED", 0L)
                            >= behaviour
                                    .getOrDefault("paid after the cancel", new AtomicLong())
                                    .get();
            boolean allRecorded =
                    app.getBean(Payments.class).unrecorded(sim.paidPayments()).isEmpty();
            boolean projected;
            try {
                projected = activities.inventoryView(activityId).stream()
                        .allMatch(v -> v.redis().openReserved() == 0 && v.crossSystemDelta() == 0);
            } catch (RedisException e) {
                // a failover in progress: the client follows the new master within seconds
                if (redisWaits++ == 0) {
                    console.println("drain: Redis not answering yet (" + e.getMessage() + "), asking again");
                }
                projected = false;
            }
            if ((terminal == queued.size() && projected && ordersFinal && refundsDone && allRecorded)
                    || System.nanoTime() > deadline) {
                break;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        double drainSeconds = (System.nanoTime() - drainStart) / 1e9;
        progress.phase("checking");

        List<InvariantChecker.Check> checks = new ArrayList<>();
        try {
            checks.addAll(checker.check(activityId, true));
        } catch (RedisException e) {
            checks.add(new InvariantChecker.Check("Redis answered the invariant checks", false, e.getMessage()));
        }
        checks.add(new InvariantChecker.Check(
                "every QUEUED reservation reached a terminal state",
                terminal == queued.size(),
                terminal + " of " + queued.size()));
        checks.add(new InvariantChecker.Check(
                "a resent request returns the same reservation",
                mismatches.get() == 0,
                mismatches.get() + " mismatches" + (mismatchExamples.isEmpty() ? "" : ": " + mismatchExamples)));
        checks.add(new InvariantChecker.Check(
                "the entry breaker paused admission only under an injected fault",
                !chaos.isEmpty() || (entry.breakerRefusals() == 0 && entry.trips() == 0),
                entry.breakerRefusals()
                        + " answers 503 while paused, " + entry.trips() + " pauses"
                        + (chaos.isEmpty() ? ", no fault injected" : ", faults injected")));
        Map<String, Long> orderStates = app.getBean(Orders.class).countByStatus(activityId);
        long unfinished = orderStates.entrySet().stream()
                .filter(e -> !e.getKey().equals("PAID") && !e.getKey().equals("CANCELLED"))
                .mapToLong(Map.Entry::getValue)
                .sum();
        checks.add(new InvariantChecker.Check(
                "every order ended PAID or CANCELLED", unfinished == 0, unfinished + " not final"));
        Map<String, Long> paymentStates = app.getBean(Payments.class).paymentCounts(activityId);
        long afterCancel = behaviour
                .getOrDefault("paid after the cancel", new AtomicLong())
                .get();
        // a late payment made before its order was cancelled pays the order, or loses the race to its cancel and
        // is refunded; one made after the cancel is always refunded (and money kept for an unpaid order is an
        // invariant failure above)
        long paidLate = behaviour
                .getOrDefault("paid late, before the cancel", new AtomicLong())
                .get();
        long refunded = paymentStates.getOrDefault("REFUNDED", 0L);
        checks.add(new InvariantChecker.Check(
                "money taken after a cancel was refunded",
                refunded >= afterCancel
                        && refunded <= afterCancel + paidLate
                        && !paymentStates.containsKey("REFUNDING"),
                refunded + " refunded; " + afterCancel + " paid after the cancel"
                        + (paidLate == 0
                                ? ""
                                : ", " + paidLate + " paid late before it (refunded if they lost the race)")));
        List<UUID> channelPaid = sim.paidPayments();
        int unrecorded = app.getBean(Payments.class).unrecorded(channelPaid).size();
        checks.add(new InvariantChecker.Check(
                "every payment the channel took is recorded (by its callback or the statement)",
                unrecorded == 0,
                (channelPaid.size() - unrecorded) + " of " + channelPaid.size() + " recorded, " + sim.callbacksLost()
                        + " callbacks never sent"));
        return new Report(
                activityId,
                shape,
                snapshot(first),
                snapshot(replay),
                snapshot(retry),
                mismatches.get(),
                queued.size(),
                terminal,
                app.getBean(Reservations.class).countByStatus(activityId),
                orderStates,
                seconds,
                requests.get(),
                latency.getValueAtPercentile(50),
                latency.getValueAtPercentile(99),
                latency.getMaxValue(),
                drainSeconds,
                chaos.isEmpty() ? Map.of() : Failpoints.fired(),
                retriedAfterError.get(),
                snapshot(behaviour),
                paymentStates,
                orderStates.getOrDefault("CANCELLED", 0L),
                sim.callbacksDelivered(),
                sim.callbacksFailed(),
                sim.callbacksLost(),
                paused,
                entry,
                (long) app.getBean(MeterRegistry.class)
                        .counter("reservation.bucket.transfer")
                        .count(),
                byInstance(),
                passedOver.get(),
                nodeFigures.get(),
                checks);
    }

    private void setUp(long activityId, Shape shape) throws Exception {
        List<Map<String, Object>> skus = new ArrayList<>();
        for (int s = 0; s < shape.skus(); s++) {
            skus.add(Map.of(
                    "sku_id",
                    skuId(s),
                    "price",
                    new BigDecimal("99.00"),
                    "stock",
                    shape.unitsPerSku(),
                    "buckets",
                    shape.buckets()));
        }
        Instant now = Instant.now();
        expect(
                client.post(
                        "/api/v1/admin/activities",
                        adminToken,
                        Map.of(
                                "activity_id",
                                activityId,
                                "name",
                                "demo sale",
                                "starts_at",
                                now.minusSeconds(1).toString(),
                                "ends_at",
                                now.plusSeconds(3600).toString(),
                                "business_deadline_seconds",
                                300,
                                "payment_timeout_seconds",
                                PAYMENT_TIMEOUT_SECONDS,
                                "skus",
                                skus)),
                201);
        expect(client.post("/api/v1/admin/activities/" + activityId + "/warm", adminToken, null), 200);
        expect(client.post("/api/v1/admin/activities/" + activityId + "/open", adminToken, null), 200);
    }

    private static long skuId(int index) {
        return 90_001 + index;
    }

    private void buyer(long activityId, int skuCount, long userId) throws Exception {
        String token = Tokens.user(userSecret, userId, Duration.ofHours(1));
        long sku = skuId((int) (userId % skuCount));
        String requestId = UUID.randomUUID().toString();
        SaleClient.Response r =
                timed(() -> call(userId, c -> c.reserve(token, activityId, sku, requestId)), requests, latency);
        first.computeIfAbsent(r.code(), k -> new AtomicLong()).incrementAndGet();
        if (firstAnswers.incrementAndGet() == midPoint) {
            Thread.ofPlatform().name("mid-sale").start(() -> {
                try {
                    midSale.run();
                    midSaleRun.complete(null);
                } catch (RuntimeException e) {
                    midSaleRun.completeExceptionally(e);
                }
            });
        }
        Object rid = r.body().get("reservation_id");
        if (r.status() == 202) {
            queued.add(rid.toString());
            String statusUrl = (String) r.body().get("status_url");
            afterSaleWork.add(afterSale.submit(() -> {
                winner(token, statusUrl, userId);
                return null;
            }));
        }
        if (userId % 10 == 0) {
            SaleClient.Response again =
                    timed(() -> call(userId, c -> c.reserve(token, activityId, sku, requestId)), requests, latency);
            replay.computeIfAbsent(again.code(), k -> new AtomicLong()).incrementAndGet();
            // a 503 says "not now", not "no": the buyer asks again later, as Retry-After tells a client
            for (int wait = 0; r.status() == 202 && again.status() == 503 && wait < 20; wait++) {
                TimeUnit.SECONDS.sleep(1);
                again = timed(() -> call(userId, c -> c.reserve(token, activityId, sku, requestId)), requests, latency);
            }
            if (r.status() == 202 && !rid.equals(again.body().get("reservation_id"))) {
                mismatches.incrementAndGet();
                if (mismatchExamples.size() < 5) {
                    mismatchExamples.add("user " + userId + ": QUEUED " + rid + ", resent -> " + again.status() + " "
                            + again.code() + " " + again.body().get("reservation_id"));
                }
            }
            if (again.status() == 202) {
                // sold out at first, a unit released since: the same request id may now reserve
                queued.add(again.body().get("reservation_id").toString());
            }
        } else if (userId % 10 == 1) {
            String other = UUID.randomUUID().toString();
            SaleClient.Response again =
                    timed(() -> call(userId, c -> c.reserve(token, activityId, sku, other)), requests, latency);
            retry.computeIfAbsent(again.code(), k -> new AtomicLong()).incrementAndGet();
            if (again.status() == 202) {
                queued.add(again.body().get("reservation_id").toString());
            }
        }
    }

    /**
     * What a winner does once the order exists: most pay (some callbacks arrive twice, some late),
     * some cancel, some let the payment time run out, and a few pay only after the order was
     * cancelled (the channel takes the money anyway: it must be refunded).
     */
    private void winner(String token, String statusUrl, long userId) throws Exception {
        String orderId = null;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (orderId == null && System.nanoTime() < until) {
            SaleClient.Response v = call(userId, c -> c.get(statusUrl, token));
            Object state = v.body().get("state");
            if ("ORDER_CREATED".equals(state)) {
                orderId = (String) v.body().get("order_id");
            } else if (state != null && !"QUEUED".equals(state)) {
                return;
            } else {
                TimeUnit.MILLISECONDS.sleep(250);
            }
        }
        if (orderId == null) {
            count("order never seen");
            return;
        }
        int kind = (int) (userId % 20);
        if (kind >= 16 && kind <= 18) {
            count("let the payment time out");
            return;
        }
        String path = "/api/v1/orders/" + orderId;
        if (kind == 14 || kind == 15) {
            SaleClient.Response c = retrying(() -> call(userId, i -> i.post(path + "/cancel", token, null)));
            count(c.status() == 200 ? "cancelled" : "cancel answered " + c.code());
            return;
        }
        SaleClient.Response p = retrying(() -> call(userId, c -> c.post(path + "/payments", token, null)));
        if (p.status() != 201) {
            count("payment start answered " + p.code());
            return;
        }
        UUID paymentId = UUID.fromString((String) p.body().get("payment_id"));
        if (kind == 19) {
            java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
            afterSaleWork.add(done);
            payAfterCancel(
                    userId,
                    path,
                    token,
                    paymentId,
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(PAYMENT_TIMEOUT_SECONDS + 45),
                    done);
            return;
        }
        if (kind == 3 || kind == 4) {
            sim.pay(paymentId, false);
            sim.notifyLater(paymentId, 3_000);
            count("paid, callback late");
        } else if (kind <= 2) {
            sim.pay(paymentId, true);
            sim.notifyLater(paymentId, 500);
            count("paid, callback twice");
        } else {
            sim.pay(paymentId, true);
            count("paid");
        }
    }

    /** Waits (without holding a thread) for the order to be cancelled, then pays anyway. */
    private void payAfterCancel(
            long userId,
            String path,
            String token,
            UUID paymentId,
            long deadline,
            java.util.concurrent.CompletableFuture<Void> done) {
        try {
            boolean cancelled = "CANCELLED"
                    .equals(call(userId, c -> c.get(path, token)).body().get("status"));
            if (cancelled || System.nanoTime() > deadline) {
                // past the deadline with the order not yet cancelled (its canceller was down), the payment may
                // still be open: the buyer's late money then pays the order, or races its cancel - either way not
                // "after the cancel", whose every payment must come back
                boolean taken = sim.pay(paymentId, true);
                count(
                        !taken
                                ? "late payment refused by the channel"
                                : cancelled ? "paid after the cancel" : "paid late, before the cancel");
                done.complete(null);
            } else {
                afterSale.schedule(
                        () -> payAfterCancel(userId, path, token, paymentId, deadline, done), 1, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            done.completeExceptionally(e);
        }
    }

    /** Sets what happens once a third of the buyers have had their first answer (the sale goes on meanwhile). */
    public void onMidSale(Runnable action) {
        this.midSale = action;
    }

    /** Sets where the entry's counters come from: every instance of a cluster. */
    void admissionCounters(java.util.function.Supplier<AdmissionCounters> counters) {
        this.admissionCounters = counters;
    }

    /** Sets the per-node figures the report prints. */
    public void nodeFigures(java.util.function.Supplier<List<String>> figures) {
        this.nodeFigures = figures;
    }

    interface ClientCall {
        SaleClient.Response call(SaleClient instance) throws Exception;
    }

    /**
     * One call of a buyer, to their instance (by user id); an instance that cannot be reached (stopped,
     * crashed, restarting) is passed over for the next, as a load balancer does.
     */
    private SaleClient.Response call(long userId, ClientCall call) throws Exception {
        java.io.IOException last = null;
        for (int i = 0; i < instances.size(); i++) {
            int n = (int) ((userId + i) % instances.size());
            try {
                SaleClient.Response r = call.call(instances.get(n));
                answeredBy[n].incrementAndGet();
                return r;
            } catch (java.io.IOException e) {
                last = e;
                passedOver.incrementAndGet();
            }
        }
        throw last;
    }

    private Map<String, Long> byInstance() {
        Map<String, Long> out = new java.util.LinkedHashMap<>();
        for (int i = 0; i < urls.size(); i++) {
            out.put(urls.get(i), answeredBy[i].get());
        }
        return out;
    }

    private void count(String what) {
        behaviour.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
    }

    private SaleClient.Response retrying(Call call) throws Exception {
        SaleClient.Response r = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            r = call.call();
            if (r.status() != 500) {
                return r;
            }
            retriedAfterError.incrementAndGet();
        }
        return r;
    }

    interface Call {
        SaleClient.Response call() throws Exception;
    }

    private final AtomicLong retriedAfterError = new AtomicLong();

    /** A buyer's call; a 500 (the server failed mid-request) is retried with the same request, as a real client does. */
    private SaleClient.Response timed(Call call, AtomicLong requests, ConcurrentHistogram latency) throws Exception {
        SaleClient.Response r = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            if (attempt > 0) {
                retriedAfterError.incrementAndGet();
            }
            long t = System.nanoTime();
            r = call.call();
            latency.recordValue(Math.max(1, (System.nanoTime() - t) / 1000));
            requests.incrementAndGet();
            if (r.status() != 500) {
                return r;
            }
        }
        return r;
    }

    private static void expect(SaleClient.Response r, int status) {
        if (r.status() != status) {
            throw new IllegalStateException("admin call answered " + r.status() + " " + r.body());
        }
    }

    private static Map<String, Long> snapshot(Map<String, AtomicLong> m) {
        Map<String, Long> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }
}
