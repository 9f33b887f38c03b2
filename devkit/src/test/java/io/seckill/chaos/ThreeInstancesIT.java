package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.api.Tokens;
import io.seckill.cli.SaleClient;
import io.seckill.engines.AppProcess;
import io.seckill.engines.EmbeddedEngines;
import io.seckill.failpoint.Failpoint;
import io.seckill.outbox.OutboxEvent;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.OrderCreateRequested;
import io.seckill.reservation.OrderRequestSender;
import io.seckill.reservation.ReservationIds;
import io.seckill.support.ChildSales;
import io.seckill.support.IntegrationTest;
import io.seckill.support.Messages;
import io.seckill.support.TestChildApps;
import io.seckill.support.TestEngines;
import io.seckill.support.TestRedisCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Three instances of {@code serve} - every role in each - on one PostgreSQL, one broker and the Redis
 * Cluster: the consumers share one group, the workers share the tables by leases, and a sale whose
 * buyers are spread over the three ends with every guarantee.
 */
@Tag("slow")
class ThreeInstancesIT {

    private static final Pattern CONSUMED =
            Pattern.compile("^order_consume_total\\{[^}]*\\} ([0-9.E]+)", Pattern.MULTILINE);
    private static final Pattern DUPLICATES =
            Pattern.compile("^order_consume_total\\{[^}]*result=\"duplicate\"[^}]*\\} ([0-9.E]+)", Pattern.MULTILINE);
    private static final Pattern ALREADY_PROJECTED = Pattern.compile(
            "^projection_apply_total\\{(?=[^}]*event=\"order_created\")"
                    + "(?=[^}]*result=\"already_projected\")[^}]*\\} ([0-9.E]+)",
            Pattern.MULTILINE);
    private static final String REQUESTS = "SECKILL_ORDER_REQUEST_THREE";
    private static final String EVENTS = "SECKILL_ORDER_EVENT_THREE";
    private static final List<AppProcess> APPS = new ArrayList<>();
    private static JdbcTemplate jdbc;
    private static Redis redis;
    private static DefaultMQProducer producer;

    @BeforeAll
    static void startInstances() throws Exception {
        EmbeddedEngines engines = TestEngines.get();
        Map<String, String> p = TestChildApps.properties("three");
        p.put("seckill.redis-cluster", TestRedisCluster.get().seeds());
        // topics and groups of their own: no other application in this JVM's tests consumes them
        p.put("seckill.mq.order-request-topic", REQUESTS);
        p.put("seckill.mq.order-event-topic", EVENTS);
        p.put("seckill.mq.order-consumer-group", "seckill-order-consumer-three");
        p.put("seckill.mq.projection-group", "seckill-projection-three");
        p.put("logging.level.io.seckill", "INFO");
        p.put("seckill.failpoints-admin", "true");
        // the 1,000 same-user requests are about what Redis and PostgreSQL hold, not the per-user rate limit
        p.put("seckill.admission.max-per-user-per-second", "0");
        p.put("seckill.reservation.send-grace", "2s");
        try (ExecutorService starting = Executors.newFixedThreadPool(3)) {
            List<Future<AppProcess>> started = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                started.add(starting.submit(() -> {
                    AppProcess app = new AppProcess(p, Path.of("target", "three-instances"));
                    app.start();
                    return app;
                }));
            }
            for (Future<AppProcess> f : started) {
                APPS.add(f.get());
            }
        }
        jdbc = new JdbcTemplate(new DriverManagerDataSource(engines.jdbcUrl(), "postgres", "postgres"));
        redis = Redis.connect(null, List.of(TestRedisCluster.get().seeds().split(",")));
        producer = new DefaultMQProducer("seckill-three-instances-test", engines.brokerSignature());
        producer.setNamesrvAddr(engines.namesrvAddress());
        producer.start();
    }

    @AfterAll
    static void stopInstances() throws Exception {
        for (AppProcess app : APPS) {
            app.close();
        }
        if (redis != null) {
            redis.close();
        }
        if (producer != null) {
            producer.shutdown();
        }
    }

    @Test
    @DisplayName(
            "three app instances, buyers spread over them: the order work is shared, each unit sold once, one order "
                    + "per user, every QUEUED reservation ends, every invariant PASS")
    void saleOverThreeInstances() throws Exception {
        long activityId = openSale(100);
        String admin = admin();

        Set<String> queued = ConcurrentHashMap.newKeySet();
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        try (ExecutorService buyers = Executors.newFixedThreadPool(16)) {
            List<Future<?>> all = new ArrayList<>();
            for (long user = 1; user <= 400; user++) {
                long u = user;
                SaleClient instance = APPS.get((int) (u % 3)).apiClient();
                all.add(buyers.submit(() -> {
                    SaleClient.Response r = instance.reserve(
                            Tokens.user(IntegrationTest.USER_SECRET, u, Duration.ofMinutes(10)),
                            activityId,
                            1,
                            UUID.randomUUID().toString());
                    statuses.merge(r.status(), 1, Integer::sum);
                    if (r.status() == 202) {
                        queued.add((String) r.body().get("reservation_id"));
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get();
            }
        }
        assertThat(statuses.keySet()).as("answers " + statuses).isSubsetOf(202, 409);
        assertThat(queued).hasSize(100);
        Awaitility.await()
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> {
                    assertThat(jdbc.queryForObject(
                                    "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> "
                                            + "'RESERVED'",
                                    Long.class,
                                    activityId))
                            .isEqualTo(100);
                    Map<String, Object> inv = APPS.get(2)
                            .apiClient()
                            .get("/api/v1/admin/activities/" + activityId + "/invariants", admin)
                            .body();
                    assertThat(inv.get("pass")).as(inv.toString()).isEqualTo(true);
                });
        assertThat(jdbc.queryForObject("SELECT count(*) FROM orders WHERE activity_id = ?", Long.class, activityId))
                .isEqualTo(100);
        long sharing = APPS.stream().filter(app -> metric(app, CONSUMED) > 0).count();
        assertThat(sharing)
                .as("instances whose consumer created orders (one group, queues shared)")
                .isGreaterThan(1);
    }

    /**
     * One buyer's reservation of the slot's SKU on {@code app}; {@code markLost}: the buyer, who holds an order
     * already, first loses their one-attempt mark (as a failover loses it), so Redis admits the attempt,
     * PostgreSQL's one-order-per-user key rejects it and a compensation follows.
     */
    private SaleClient.Response reserveOn(AppProcess app, SkuSlot slot, long user, boolean markLost) throws Exception {
        if (markLost) {
            redis.sync().del(slot.user(user));
        }
        return app.apiClient()
                .reserve(
                        Tokens.user(IntegrationTest.USER_SECRET, user, Duration.ofMinutes(10)),
                        slot.activityId(),
                        slot.skuId(),
                        UUID.randomUUID().toString());
    }

    static Stream<Arguments> crashRows() {
        return Stream.of(
                Arguments.of("fault #1", Failpoint.AFTER_REDIS_RESERVE),
                Arguments.of("fault #5", Failpoint.AFTER_INBOX_INSERT),
                Arguments.of("fault #6", Failpoint.AFTER_PG_COMMIT_BEFORE_ACK),
                Arguments.of("fault #12", Failpoint.AFTER_COMPENSATION_LUA));
    }

    @ParameterizedTest(
            name = "{0}: one of three instances crashes (halt) at {1}; the other two go on, it restarts, every "
                    + "QUEUED reservation ends and every invariant PASS")
    @MethodSource("crashRows")
    void crashOneOfThree(String row, Failpoint point) throws Exception {
        boolean compensating = point == Failpoint.AFTER_COMPENSATION_LUA;
        long activityId = openSale(compensating ? 40 : 300);
        // the buyer whose later attempts PostgreSQL rejects holds an order first
        long holder = activityId * 1_000 - 1;
        if (compensating) {
            SaleClient.Response first = reserveOn(APPS.getFirst(), SkuSlot.single(activityId, 1), holder, false);
            assertThat(first.status()).as(first.body().toString()).isEqualTo(202);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> jdbc.queryForObject(
                                    "SELECT count(*) FROM orders WHERE activity_id = ? AND user_id = ?",
                                    Long.class,
                                    activityId,
                                    holder)
                            == 1);
        }
        AppProcess victim = APPS.getLast();
        SaleClient.Response armed =
                victim.apiClient().post("/api/v1/admin/failpoints/" + point.id(), admin(), Map.of("action", "crash"));
        assertThat(armed.status()).as(armed.body().toString()).isEqualTo(200);
        Set<String> queued = ConcurrentHashMap.newKeySet();
        SkuSlot slot = SkuSlot.single(activityId, 1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        long user = activityId * 1_000;
        for (; victim.alive() && System.nanoTime() < deadline; user++) {
            try {
                SaleClient.Response r =
                        reserveOn(APPS.get((int) (user % 3)), slot, compensating ? holder : user, compensating);
                if (r.status() == 202) {
                    queued.add((String) r.body().get("reservation_id"));
                }
            } catch (java.io.IOException e) {
                // the victim went down under this request: the loop ends
            }
            TimeUnit.MILLISECONDS.sleep(compensating ? 200 : 20);
        }
        assertThat(victim.awaitExit(Duration.ofSeconds(30)))
                .as(row + ": the instance halted at " + point.id() + " (see " + victim.log() + ")")
                .isEqualTo(137);
        // the other two go on while it is down (and the first request may have been the one that halted it)
        for (int i = 0; i < 4; i++, user++) {
            SaleClient.Response r = reserveOn(APPS.get(i % 2), slot, compensating ? holder : user, compensating);
            assertThat(r.status()).as(r.body().toString()).isEqualTo(202);
            queued.add((String) r.body().get("reservation_id"));
        }
        victim.start();
        Awaitility.await(row)
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> {
                    assertThat(jdbc.queryForObject(
                                    "SELECT count(*) FROM inventory_reservation WHERE reservation_id = ANY (?::uuid[]) "
                                            + "AND status IN ('ORDER_CREATED', 'CANCELLED', 'COMPENSATED', 'MANUAL_REVIEW')",
                                    Long.class,
                                    (Object) queued.toArray(String[]::new)))
                            .as("QUEUED reservations terminal")
                            .isEqualTo(queued.size());
                    Map<String, Object> inv = APPS.getFirst()
                            .apiClient()
                            .get("/api/v1/admin/activities/" + activityId + "/invariants?quiet=true", admin())
                            .body();
                    assertThat(inv.get("pass")).as(inv.toString()).isEqualTo(true);
                });
        assertThat(queued).isNotEmpty();
    }

    @Test
    @DisplayName(
            "1,000 concurrent reservations by one user with different request ids, spread over three instances: one "
                    + "202, one order, PostgreSQL stock down by one")
    void oneUserThousandRequestsOverThreeInstances() throws Exception {
        long activityId = openSale(10);
        long user = activityId * 7;
        String token = Tokens.user(IntegrationTest.USER_SECRET, user, Duration.ofMinutes(10));
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        try (ExecutorService buyers = Executors.newFixedThreadPool(32)) {
            List<Future<?>> all = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                SaleClient instance = APPS.get(i % 3).apiClient();
                all.add(buyers.submit(() -> {
                    statuses.merge(
                            instance.reserve(
                                            token,
                                            activityId,
                                            1,
                                            UUID.randomUUID().toString())
                                    .status(),
                            1,
                            Integer::sum);
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get();
            }
        }
        assertThat(statuses).containsEntry(202, 1).containsEntry(409, 999);
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> jdbc.queryForObject(
                                "SELECT count(*) FROM orders WHERE activity_id = ? AND user_id = ?",
                                Long.class,
                                activityId,
                                user)
                        == 1);
        assertThat(jdbc.queryForObject(
                        "SELECT available_stock FROM sku_inventory WHERE activity_id = ?", Integer.class, activityId))
                .isEqualTo(9);
        assertInvariantsPass(activityId);
    }

    @Test
    @DisplayName(
            "fault #4 on three instances: one message_id sent 10,000 times through the broker, consumed by the three: "
                    + "inbox 1, order 1, ledger 1, ORDER_CREATED 1")
    void tenThousandDuplicatesOverThreeConsumers() throws Exception {
        double before = metric(DUPLICATES);
        long activityId = openSale(5);
        String rid = reservedOn(1, activityId, activityId * 3);
        OrderCreateRequested msg = Messages.forReservation(redis, activityId, 1, rid);
        for (int i = 0; i < 10_000; i++) {
            producer.sendOneway(OrderRequestSender.message(REQUESTS, msg, i));
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> metric(DUPLICATES) - before >= 10_000);
        assertThat(APPS.stream().filter(app -> metric(app, DUPLICATES) > 0).count())
                .as("instances that saw duplicates")
                .isGreaterThan(1);
        assertThat(jdbc.queryForObject(
                        "SELECT count(*) FROM consumer_inbox WHERE message_id = ?", Long.class, msg.messageId()))
                .isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM orders WHERE reservation_id = ?::uuid", Long.class, rid))
                .isEqualTo(1);
        assertThat(jdbc.queryForObject(
                        "SELECT count(*) FROM inventory_ledger WHERE activity_id = ?", Long.class, activityId))
                .isEqualTo(1);
        assertThat(jdbc.queryForObject(
                        "SELECT count(*) FROM event_outbox WHERE event_type = 'ORDER_CREATED' AND aggregate_id = "
                                + "(SELECT order_id FROM orders WHERE reservation_id = ?::uuid)",
                        Long.class,
                        rid))
                .isEqualTo(1);
        assertInvariantsPass(activityId);
    }

    @Test
    @DisplayName(
            "fault #19 on three instances: ORDER_CREATED delivered again 30 times (same event) to the three projections "
                    + "leaves the Redis projection and counters unchanged")
    void duplicateEventsOverThreeProjections() throws Exception {
        long activityId = openSale(3);
        String rid = reservedOn(2, activityId, activityId * 5);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> "1".equals(redis.sync().hget(slot.counter(), "committed")));
        Map<String, String> counters = redis.sync().hgetall(slot.counter());
        String payload = jdbc.queryForObject(
                "SELECT payload::text FROM event_outbox WHERE event_type = 'ORDER_CREATED' "
                        + "AND aggregate_id = (SELECT order_id FROM orders WHERE reservation_id = ?::uuid)",
                String.class,
                rid);
        double before = metric(ALREADY_PROJECTED);
        for (int i = 0; i < 30; i++) {
            producer.send(Messages.signedEvent(
                    new ReservationIds(
                            Map.of(1, TestChildApps.properties("three").get("seckill.ids.keys.1"))),
                    EVENTS,
                    OutboxEvent.ORDER_CREATED,
                    rid,
                    payload.getBytes(StandardCharsets.UTF_8)));
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> metric(ALREADY_PROJECTED) - before >= 30);
        assertThat(redis.sync().hgetall(slot.counter())).isEqualTo(counters);
        assertThat(redis.sync().hget(slot.reservation(rid), "status")).isEqualTo("ORDER_CREATED");
        assertInvariantsPass(activityId);
    }

    @Test
    @DisplayName(
            "fault #2 on three instances: the broker killed (kill -9) mid-sale and restarted on its store: every QUEUED "
                    + "reservation made on any instance becomes an order")
    void brokerKilledUnderThreeInstances() throws Exception {
        long activityId = openSale(300);
        Set<String> queued = ConcurrentHashMap.newKeySet();
        long user = activityId * 11;
        for (int i = 0; i < 30; i++) {
            reserveOn(i % 3, activityId, ++user, queued);
        }
        TestEngines.get().broker().kill();
        try {
            for (int i = 0; i < 30; i++) {
                reserveOn(i % 3, activityId, ++user, queued);
            }
        } finally {
            TestEngines.get().broker().start();
        }
        assertThat(queued).hasSizeGreaterThan(30);
        Awaitility.await()
                .atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> assertThat(jdbc.queryForObject(
                                "SELECT count(*) FROM inventory_reservation WHERE reservation_id = ANY (?::uuid[]) AND status "
                                        + "= 'ORDER_CREATED'",
                                Long.class,
                                (Object) queued.toArray(String[]::new)))
                        .isEqualTo(queued.size()));
        assertInvariantsPass(activityId);
    }

    @Test
    @DisplayName(
            "sold out, from memory, on three instances: each answers SOLD_OUT without Redis once the SKU is empty; "
                    + "units added back are sold on every instance within 1 s, each once")
    void soldOutMemoOnThreeInstances() throws Exception {
        long activityId = openSale(3);
        Set<String> queued = ConcurrentHashMap.newKeySet();
        long user = activityId * 13;
        for (int i = 0; queued.size() < 3 && i < 30; i++) {
            reserveOn(i % 3, activityId, ++user, queued);
        }
        assertThat(queued).hasSize(3);
        Pattern fromMemory = Pattern.compile("(?m)^reservation_sold_out_from_memory_total(?:\\{[^}]*\\})? (\\S+)$");
        for (int i = 0; i < 3; i++) {
            // the first refusal on each instance asks Redis; within a poll the next ones are answered from memory
            reserveOn(i, activityId, ++user, queued);
            int instance = i;
            long[] next = {user + 1_000 * (i + 1)};
            Awaitility.await("instance " + i + " answers from memory")
                    .atMost(Duration.ofSeconds(2))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        double before = metric(APPS.get(instance), fromMemory);
                        reserveOn(instance, activityId, ++next[0], queued);
                        return metric(APPS.get(instance), fromMemory) > before;
                    });
        }
        user += 10_000;
        assertThat(queued).hasSize(3);

        SaleClient.Response added = APPS.getFirst()
                .apiClient()
                .post(
                        "/api/v1/admin/activities/" + activityId + "/skus/1/adjust-stock",
                        admin(),
                        Map.of("delta", 3, "reason", "three units back from a supplier"));
        assertThat(added.status()).as(added.body().toString()).isEqualTo(200);
        long t0 = System.nanoTime();
        long[] sellableAfterMs = new long[3];
        List<Thread> buyers = new ArrayList<>();
        AtomicLong users = new AtomicLong(user);
        for (int i = 0; i < 3; i++) {
            int instance = i;
            buyers.add(Thread.ofVirtual().start(() -> {
                while (System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5)) {
                    // this buyer's own answer: another instance's sale in the meantime is not this one's
                    Set<String> mine = ConcurrentHashMap.newKeySet();
                    try {
                        reserveOn(instance, activityId, users.incrementAndGet(), mine);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    if (!mine.isEmpty()) {
                        queued.addAll(mine);
                        sellableAfterMs[instance] = (System.nanoTime() - t0) / 1_000_000;
                        return;
                    }
                    try {
                        TimeUnit.MILLISECONDS.sleep(20);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                sellableAfterMs[instance] = -1;
            }));
        }
        for (Thread t : buyers) {
            t.join();
        }
        LoggerFactory.getLogger(ThreeInstancesIT.class)
                .info("sold_out_memo.sellable_after_ms instances={}", java.util.Arrays.toString(sellableAfterMs));
        for (int i = 0; i < 3; i++) {
            assertThat(sellableAfterMs[i])
                    .as("instance " + i + " sold one of the added units within a second")
                    .isBetween(0L, 1_000L);
        }
        assertThat(queued).hasSize(6);
        assertInvariantsPass(activityId);
    }

    /** {@code user} reserves on instance {@code instance}: the reservation id of its 202. */
    private static String reservedOn(int instance, long activityId, long user) throws Exception {
        Set<String> queued = ConcurrentHashMap.newKeySet();
        reserveOn(instance, activityId, user, queued);
        assertThat(queued).hasSize(1);
        return queued.iterator().next();
    }

    private static void reserveOn(int instance, long activityId, long user, Set<String> queued) throws Exception {
        SaleClient.Response r = APPS.get(instance)
                .apiClient()
                .reserve(
                        Tokens.user(IntegrationTest.USER_SECRET, user, Duration.ofMinutes(10)),
                        activityId,
                        1,
                        UUID.randomUUID().toString());
        if (r.status() == 202) {
            queued.add((String) r.body().get("reservation_id"));
        }
    }

    private static void assertInvariantsPass(long activityId) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> {
                    Map<String, Object> inv = APPS.getFirst()
                            .apiClient()
                            .get("/api/v1/admin/activities/" + activityId + "/invariants?quiet=true", admin())
                            .body();
                    assertThat(inv.get("pass")).as(inv.toString()).isEqualTo(true);
                });
    }

    /** A one-SKU sale created on the first instance and opened on the second. */
    private static long openSale(int stock) throws Exception {
        long activityId = Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000_000L) + 1;
        ChildSales.open(APPS.getFirst().apiClient(), APPS.get(1).apiClient(), activityId, stock, 900, 1);
        return activityId;
    }

    private static String admin() {
        return Tokens.admin(IntegrationTest.ADMIN_SECRET, "test", Duration.ofMinutes(30));
    }

    /** The sum of the series {@code series} matches (value in group 1) on every instance. */
    private static double metric(Pattern series) {
        return APPS.stream().mapToDouble(app -> metric(app, series)).sum();
    }

    private static double metric(AppProcess app, Pattern series) {
        try {
            Matcher m = series.matcher(new SaleClient(app.managementUrl()).getText("/actuator/prometheus"));
            double total = 0;
            while (m.find()) {
                total += Double.parseDouble(m.group(1));
            }
            return total;
        } catch (Exception e) {
            throw new IllegalStateException("cannot scrape " + app.managementUrl(), e);
        }
    }
}
