package io.seckill.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.SeckillApplication;
import io.seckill.activity.ActivityService;
import io.seckill.api.OperatorPlane;
import io.seckill.api.TokenDecoders;
import io.seckill.api.Tokens;
import io.seckill.cli.SaleClient;
import io.seckill.compensation.CompensationWorker;
import io.seckill.config.SeckillProperties;
import io.seckill.failpoint.Failpoints;
import io.seckill.health.RoleReadiness;
import io.seckill.invariants.InvariantChecker;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import java.math.BigDecimal;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Base of the integration tests: one application context on the real engines for the whole JVM.
 * Tests isolate themselves by activity id (each test makes its own sale).
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(TraceCapture.class)
public abstract class IntegrationTest {

    public static final String USER_SECRET = "test-user-secret-0123456789abcdef0123456789";
    /** The id key of the tests' application, version 1: an instance beside it in the same fleet uses it too. */
    public static final String ID_KEY = "test-id-key-v1-0123456789abcdef0123456789";

    public static final String ADMIN_SECRET = "test-admin-secret-0123456789abcdef012345678";
    private static final AtomicLong ACTIVITY_IDS =
            new AtomicLong(ThreadLocalRandom.current().nextLong(1_000, 1_000_000) * 1000);

    @DynamicPropertySource
    static void engines(DynamicPropertyRegistry registry) {
        TestEngines.get().springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("seckill.jwt.user-secret", () -> USER_SECRET);
        registry.add("seckill.jwt.admin-secret", () -> ADMIN_SECRET);
        registry.add("seckill.ids.keys.1", () -> ID_KEY);
        registry.add("seckill.reservation.send-grace", () -> "2s");
        registry.add("seckill.outbox.base-backoff", () -> "100ms");
        // the compensation and payment workers are driven explicitly by the tests, so interleavings are chosen, not
        // raced
        registry.add(
                "seckill.roles",
                () -> "api,send-due-scanner,order-consumer,outbox-relay,projection,deadline-sweeper,dlq-watch");
        registry.add("seckill.payment.channel-url", () -> TestPaySim.get().url());
        registry.add("seckill.payment.callback-secret", () -> TestPaySim.SECRET);
        registry.add("seckill.payment.channel-timeout", () -> "1s");
        registry.add("seckill.payment.lease", () -> "5s");
        registry.add("seckill.payment.base-backoff", () -> "50ms");
        // the simulator lists a payment the moment it is paid: the statement is read up to now
        registry.add("seckill.payment.statement.delay", () -> "0s");
        registry.add("seckill.mq.max-reconsume-times", () -> "3");
        // the OpenAPI document (OpenApiDocumentIT): the API's paths, answers in JSON
        registry.add("springdoc.paths-to-match", () -> "/api/**");
        registry.add("springdoc.default-produces-media-type", () -> "application/json");
        registry.add("springdoc.api-docs.version", () -> "openapi_3_1");
        registry.add("management.tracing.sampling.probability", () -> "0.0");
        registry.add("management.opentelemetry.tracing.export.schedule-delay", () -> "100ms");
        registry.add("seckill.workers.stall-alert-attempts", () -> "2");
        registry.add("seckill.admission.entry-port", () -> "0");
        registry.add("seckill.admin.port", () -> "0");
    }

    @LocalServerPort
    protected int port;

    @Autowired
    protected JdbcTemplate jdbc;

    @Autowired
    protected TransactionTemplate tx;

    @Autowired
    protected Redis redis;

    @Autowired
    protected InvariantChecker invariants;

    @Autowired
    protected ActivityService activities;

    @Autowired
    protected SeckillProperties props;

    @Autowired
    protected MeterRegistry meters;

    /** The operator's listener (the admin API and the dashboard), apart from the buyers' port. */
    @Autowired
    protected OperatorPlane operatorPlane;

    @Autowired
    protected DefaultMQProducer producer;

    @Autowired
    protected CompensationWorker compensation;

    @Autowired
    protected HealthContributorRegistry healthRegistry;

    /**
     * The readiness a worker pod running {@code roles} would answer, over this application's real checks (db, a
     * Redis write, the send path): the test application runs the api role too, and is ready through any outage.
     */
    protected Status workerReadiness(String... roles) {
        return new RoleReadiness(Set.of(roles), d -> (HealthIndicator) healthRegistry.getContributor(d.contributor()))
                .health()
                .getStatus();
    }

    /** The test application's own readiness, as its probe reads it. */
    protected int readinessStatus() throws Exception {
        return client().get("/actuator/health/readiness", null).status();
    }

    protected SaleClient client() {
        return new SaleClient(
                "http://127.0.0.1:" + port, "http://127.0.0.1:" + port, "http://127.0.0.1:" + operatorPlane.port());
    }

    protected static String userToken(long userId) {
        return Tokens.user(USER_SECRET, userId, Duration.ofMinutes(30));
    }

    protected static String adminToken() {
        return Tokens.admin(ADMIN_SECRET, "test", Duration.ofMinutes(30));
    }

    /** An operator's token that reads the operator's plane (the dashboard, inspect, invariants) and changes nothing. */
    protected static String viewToken() {
        return Tokens.operator(ADMIN_SECRET, "viewer", TokenDecoders.VIEW_SCOPE, Duration.ofHours(1));
    }

    /** An operator's token that changes what the operator's plane changes (and reads it). */
    protected static String operateToken() {
        return Tokens.operator(ADMIN_SECRET, "operator", TokenDecoders.OPERATE_SCOPE, Duration.ofHours(1));
    }

    protected static long newActivityId() {
        return ACTIVITY_IDS.incrementAndGet();
    }

    /** Creates, warms and opens a sale with the given stock per SKU (SKU ids 1, 2, ...). */
    protected long openSale(int... stockPerSku) throws Exception {
        long activityId = newActivityId();
        createSale(activityId, stockPerSku);
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/warm", adminToken(), null)
                        .status())
                .isEqualTo(200);
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/open", adminToken(), null)
                        .status())
                .isEqualTo(200);
        return activityId;
    }

    /** Creates, warms and opens a sale of one SKU (id 1) whose stock is split over {@code buckets} Redis buckets. */
    protected long openBucketedSale(int stock, int buckets) throws Exception {
        long activityId = newActivityId();
        Instant now = Instant.now();
        SaleClient.Response created = client().post(
                        "/api/v1/admin/activities",
                        adminToken(),
                        Map.of(
                                "activity_id",
                                activityId,
                                "name",
                                "bucketed " + activityId,
                                "starts_at",
                                now.minusSeconds(5).toString(),
                                "ends_at",
                                now.plusSeconds(3600).toString(),
                                "business_deadline_seconds",
                                300,
                                "payment_timeout_seconds",
                                900,
                                "skus",
                                List.of(Map.of(
                                        "sku_id",
                                        1,
                                        "price",
                                        new BigDecimal("10.50"),
                                        "stock",
                                        stock,
                                        "buckets",
                                        buckets))));
        assertThat(created.status()).as(created.body().toString()).isEqualTo(201);
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/warm", adminToken(), null)
                        .status())
                .isEqualTo(200);
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/open", adminToken(), null)
                        .status())
                .isEqualTo(200);
        return activityId;
    }

    protected void createSale(long activityId, int... stockPerSku) throws Exception {
        createSaleWithDeadline(activityId, 300, stockPerSku);
    }

    protected long openSale(int businessDeadlineSeconds, int[] stockPerSku) throws Exception {
        return openSale(businessDeadlineSeconds, 900, stockPerSku);
    }

    /** A sale whose orders can no longer move {@code businessDeadlineSeconds + paymentTimeoutSeconds} after it ends. */
    protected long openSale(int businessDeadlineSeconds, int paymentTimeoutSeconds, int[] stockPerSku)
            throws Exception {
        long activityId = newActivityId();
        createSale(activityId, businessDeadlineSeconds, paymentTimeoutSeconds, stockPerSku);
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/warm", adminToken(), null)
                        .status())
                .isEqualTo(200);
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/open", adminToken(), null)
                        .status())
                .isEqualTo(200);
        return activityId;
    }

    protected void createSaleWithDeadline(long activityId, int businessDeadlineSeconds, int... stockPerSku)
            throws Exception {
        createSale(activityId, businessDeadlineSeconds, 900, stockPerSku);
    }

    private void createSale(long activityId, int businessDeadlineSeconds, int paymentTimeoutSeconds, int... stockPerSku)
            throws Exception {
        List<Map<String, Object>> skus = new ArrayList<>();
        for (int i = 0; i < stockPerSku.length; i++) {
            skus.add(Map.of("sku_id", i + 1, "price", new BigDecimal("10.50"), "stock", stockPerSku[i]));
        }
        Instant now = Instant.now();
        SaleClient.Response r = client().post(
                        "/api/v1/admin/activities",
                        adminToken(),
                        Map.of(
                                "activity_id",
                                activityId,
                                "name",
                                "test sale " + activityId,
                                "starts_at",
                                now.minusSeconds(5).toString(),
                                "ends_at",
                                now.plusSeconds(3600).toString(),
                                "business_deadline_seconds",
                                businessDeadlineSeconds,
                                "payment_timeout_seconds",
                                paymentTimeoutSeconds,
                                "skus",
                                skus));
        assertThat(r.status()).as(r.body().toString()).isEqualTo(201);
    }

    /** Reserves for {@code userId} and waits for the order PostgreSQL creates from it. */
    protected UUID placeOrder(long activityId, long skuId, long userId) throws Exception {
        SaleClient.Response r = reserve(userId, activityId, skuId);
        assertThat(r.code()).as(r.body().toString()).isEqualTo("QUEUED");
        return Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> jdbc
                                .query(
                                        "SELECT order_id FROM orders WHERE activity_id = ? AND sku_id = ? AND user_id = ?",
                                        (rs, i) -> rs.getObject(1, UUID.class),
                                        activityId,
                                        skuId,
                                        userId)
                                .stream()
                                .findFirst()
                                .orElse(null),
                        java.util.Objects::nonNull);
    }

    protected SaleClient.Response reserve(long userId, long activityId, long skuId) throws Exception {
        return client().reserve(
                        userToken(userId), activityId, skuId, UUID.randomUUID().toString());
    }

    /**
     * Reserves for {@code userId} on a SKU whose units just came back to an empty bucket (a release, a compensation,
     * a recalibration): the same request is asked again while it is answered SOLD_OUT, for the hold of returned
     * units and a second more (docs/SCALE-OUT.md, "Sold out, from memory").
     */
    protected SaleClient.Response reserveAfterHold(long userId, long activityId, long skuId) {
        String request = UUID.randomUUID().toString();
        return Awaitility.await()
                .atMost(props.admission().soldOutHold().plusSeconds(1))
                .pollDelay(Duration.ZERO)
                // under the buyer's 10 requests a second
                .pollInterval(Duration.ofMillis(150))
                .until(() -> client().reserve(userToken(userId), activityId, skuId, request), r -> r.status() != 409);
    }

    /** Reserves one unit of SKU 1 for {@code userId}: the reservation id the answer carries. */
    protected String reservationId(long userId, long activityId) throws Exception {
        SaleClient.Response r = reserve(userId, activityId, 1);
        Object rid = r.body().get("reservation_id");
        assertThat(rid).as(r.body().toString()).isNotNull();
        return (String) rid;
    }

    /** The first reservation of a sale, waited for until the pipeline settled it. */
    protected String firstSettled(long activityId, long userId) throws Exception {
        String rid = reservationId(userId, activityId);
        awaitSettled(activityId, 1);
        return rid;
    }

    @Autowired
    private ConfigurableApplicationContext context;

    /** The context closes before the engines when the JVM exits. */
    @BeforeEach
    void closeContextBeforeEngines() {
        SpringContexts.track(context);
    }

    /** No failpoint a test armed outlives it. */
    @AfterEach
    void disarmFailpoints() {
        Failpoints.disarmAll();
    }

    /** A counter's count now (0 when nothing was counted under that name and those tags yet). */
    protected double counter(String name, String... tags) {
        Counter c = meters.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    /** Every counter named {@code name} added up, whatever its tags. */
    protected double counterTotal(String name) {
        return meters.find(name).counters().stream().mapToDouble(Counter::count).sum();
    }

    /** Every Redis key of {@code slot} gone, as after a Redis loss; how many there were. */
    protected int deleteKeys(SkuSlot slot) {
        int n = 0;
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = redis.sync()
                    .scan(cursor, ScanArgs.Builder.matches(slot.keyPattern()).limit(500));
            if (!page.getKeys().isEmpty()) {
                n += redis.sync().del(page.getKeys().toArray(String[]::new)).intValue();
            }
            cursor = page;
        } while (!cursor.isFinished());
        return n;
    }

    /** Every transaction on the server read-only by default from now on, in sessions already open too. */
    protected void serverReadOnly(boolean on) {
        jdbc.execute((ConnectionCallback<Void>) c -> {
            try (Statement st = c.createStatement()) {
                st.execute("SET default_transaction_read_only = off");
                st.execute(
                        on
                                ? "ALTER SYSTEM SET default_transaction_read_only = on"
                                : "ALTER SYSTEM RESET default_transaction_read_only");
                st.execute("SELECT pg_reload_conf()");
                st.execute("RESET default_transaction_read_only");
            }
            return null;
        });
    }

    protected long count(String sql, Object... args) {
        Long n = jdbc.queryForObject(sql, Long.class, args);
        return n == null ? 0 : n;
    }

    /** Waits (bounded) until every reservation of the sale has left RESERVED in PostgreSQL and Redis is quiet. */
    protected void awaitSettled(long activityId, long expectedReservations) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    assertThat(count(
                                    "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> 'RESERVED'",
                                    activityId))
                            .isEqualTo(expectedReservations);
                    assertThat(count(
                                    "SELECT count(*) FROM event_outbox WHERE aggregate_id IN (SELECT order_id FROM orders "
                                            + "WHERE activity_id = ?) AND status <> 'SENT'",
                                    activityId))
                            .isZero();
                    assertThat(activities.inventoryView(activityId))
                            .allSatisfy(v -> assertThat(v.crossSystemDelta())
                                    .as("Redis committed - PG occupied+sold, sku " + v.pg().skuId())
                                    .isZero());
                });
    }

    /**
     * Waits (bounded) until Redis holds no open reservation of the sale - every one it admitted, also those whose
     * caller heard no answer, has its outcome - then as {@link #awaitSettled}; how many reservations the sale has.
     */
    protected long awaitAllSettled(long activityId) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> activities.inventoryView(activityId).stream()
                        .allMatch(v -> v.redis().openReserved() == 0));
        long reservations = count("SELECT count(*) FROM inventory_reservation WHERE activity_id = ?", activityId);
        awaitSettled(activityId, reservations);
        return reservations;
    }

    /**
     * Waits (bounded) until each of {@code reservationIds} has left RESERVED in PostgreSQL, then asserts the
     * guarantees PostgreSQL alone can judge (Redis may still be reconciled after a failover lost writes).
     */
    protected void awaitEnded(long activityId, List<String> reservationIds) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(90))
                .untilAsserted(() -> assertThat(count(
                                "SELECT count(*) FROM inventory_reservation WHERE reservation_id = ANY (?::uuid[]) AND status <> 'RESERVED'",
                                (Object) reservationIds.toArray(String[]::new)))
                        .as(() -> "not ended: " + notEnded(reservationIds))
                        .isEqualTo(reservationIds.size()));
        assertThat(invariants.check(activityId, false))
                .allSatisfy(c ->
                        assertThat(c.pass()).as(c.name() + ": " + c.detail()).isTrue());
    }

    /** Each of these reservations PostgreSQL has not decided, with what PostgreSQL and Redis hold of it. */
    private String notEnded(List<String> reservationIds) {
        List<String> decided = jdbc.queryForList(
                "SELECT reservation_id::text FROM inventory_reservation "
                        + "WHERE reservation_id = ANY (?::uuid[]) AND status <> 'RESERVED'",
                String.class,
                (Object) reservationIds.toArray(String[]::new));
        List<String> out = new ArrayList<>();
        for (String rid : reservationIds) {
            if (decided.contains(rid)) {
                continue;
            }
            List<String> pg = jdbc.queryForList(
                    "SELECT status FROM inventory_reservation WHERE reservation_id = ?::uuid", String.class, rid);
            List<String> inbox = jdbc.queryForList(
                    "SELECT result_code FROM consumer_inbox WHERE reservation_id = ?::uuid", String.class, rid);
            List<String> quarantined = jdbc.queryForList(
                    "SELECT reason FROM message_quarantine " + "WHERE convert_from(payload, 'UTF8') LIKE ?",
                    String.class,
                    "%" + rid + "%");
            out.add(rid + " pg=" + pg + " inbox=" + inbox + " quarantined=" + quarantined);
        }
        return out.toString();
    }

    /** Asserts every guarantee (DESIGN.md, Guarantees) for the sale. */
    protected void assertInvariants(long activityId, boolean quiet) {
        List<InvariantChecker.Check> checks = invariants.check(activityId, quiet);
        assertThat(checks).isNotEmpty();
        assertThat(checks)
                .allSatisfy(c ->
                        assertThat(c.pass()).as(c.name() + ": " + c.detail()).isTrue());
    }
}
