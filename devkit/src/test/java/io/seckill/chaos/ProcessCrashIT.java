package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.seckill.api.Tokens;
import io.seckill.cli.SaleClient;
import io.seckill.engines.AppProcess;
import io.seckill.engines.EmbeddedEngines;
import io.seckill.failpoint.Failpoint;
import io.seckill.paysim.PaySim;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.support.Buckets;
import io.seckill.support.ChildSales;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TestChildApps;
import io.seckill.support.TestEngines;
import io.seckill.support.TestPaySim;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Real process crashes: the application runs as a child process; for each failpoint it is armed
 * with {@code crash} (halt, no shutdown hooks), driven until the process dies at that point, then
 * restarted on the same configuration - five times per failpoint. After every restart the guarantees (DESIGN.md)
 * guarantees must hold again: every QUEUED reservation terminal, no oversell, one order per user,
 * both conservation equations and Redis committed = PostgreSQL occupied + sold.
 */
@Tag("slow")
class ProcessCrashIT {

    private static final int KILLS = Integer.getInteger("seckill.crash.kills", 5);

    private static AppProcess app;
    private static JdbcTemplate jdbc;
    private static RedisClient redisClient;
    private static Redis redis;
    private static final PaySim SIM = TestPaySim.get();

    @BeforeAll
    static void startChild() throws Exception {
        EmbeddedEngines engines = TestEngines.get();
        Map<String, String> p = TestChildApps.properties("crash");
        p.put("seckill.payment.lease", "6s");
        p.put("seckill.payment.channel-timeout", "2s");
        p.put("seckill.reservation.send-grace", "2s");
        p.put("seckill.failpoints-admin", "true");
        p.put("logging.level.io.seckill", "INFO");
        app = new AppProcess(p, Path.of("target", "crash-logs"));
        app.start();
        DriverManagerDataSource ds = new DriverManagerDataSource(engines.jdbcUrl(), "postgres", "postgres");
        jdbc = new JdbcTemplate(ds);
        redisClient = RedisClient.create(engines.redisUri());
        redis = Redis.of(redisClient.connect());
    }

    @AfterAll
    static void stopChild() throws Exception {
        if (app != null) {
            app.close();
        }
        if (redis != null) {
            redis.close();
            redisClient.shutdown();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Failpoint.class)
    void realCrashes(Failpoint point) throws Exception {
        String name = point.id();
        boolean payments = point == Failpoint.AFTER_PAYMENT_RECORD_INSERT || point == Failpoint.AFTER_CANCEL_PENDING;
        long activityId = 900_000_000L + ThreadLocalRandom.current().nextLong(1_000_000) * 100;
        int stock = point == Failpoint.AFTER_COMPENSATION_LUA ? 3 : 400;
        int paymentTimeout =
                point == Failpoint.AFTER_CANCEL_PENDING ? 2 : point == Failpoint.AFTER_PAYMENT_RECORD_INSERT ? 12 : 900;
        boolean transferring = point == Failpoint.AFTER_BUCKET_TRANSFER_OUT;
        ensureRunning();
        createSale(activityId, stock, paymentTimeout, transferring ? 2 : 1);
        if (transferring) {
            // every unit moves to bucket 1, so each buyer homed in bucket 0 takes one across
            Buckets.empty(redis, new SkuSlot(activityId, 1, 0, 2), new SkuSlot(activityId, 1, 1, 2));
        }
        Set<String> queued = ConcurrentHashMap.newKeySet();
        if (point == Failpoint.AFTER_COMPENSATION_LUA) {
            // the buyer whose later attempts PostgreSQL rejects holds an order first
            // asked again while the entry is paused (the order backlog an earlier point's crashes left drains first)
            String request = UUID.randomUUID().toString();
            SaleClient.Response first = Awaitility.await()
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(500))
                    .until(
                            () -> client().reserve(user(activityId), activityId, 1, request),
                            r -> !"ADMISSION_PAUSED".equals(r.code()));
            assertThat(first.status()).as(first.body().toString()).isEqualTo(202);
            queued.add((String) first.body().get("reservation_id"));
            awaitOrder(activityId, activityId);
        }
        long[] nextUser = {activityId};
        for (int kill = 1; kill <= KILLS; kill++) {
            ensureRunning();
            SaleClient.Response armed =
                    client().post("/api/v1/admin/failpoints/" + name, admin(), Map.of("action", "crash"));
            assertThat(armed.status()).as(armed.body().toString()).isEqualTo(200);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (app.alive() && System.nanoTime() < deadline) {
                drive(point, activityId, ++nextUser[0], queued);
            }
            int exit = app.awaitExit(Duration.ofSeconds(30));
            assertThat(exit)
                    .as(name + " kill " + kill + ": the process halted at the failpoint (see " + app.log() + ")")
                    .isEqualTo(137);
            app.start();
            awaitRecovered(name, activityId, queued, payments);
        }
        assertThat(app.starts()).isGreaterThanOrEqualTo(KILLS + 1);
    }

    /** One step of traffic through the failpoint's path; errors are expected while the process dies. */
    private void drive(Failpoint point, long activityId, long user, Set<String> queued) {
        try {
            switch (point) {
                case AFTER_COMPENSATION_LUA -> {
                    // the buyer who holds the order loses their one-attempt mark (as a failover loses it): Redis
                    // admits their next attempt, PostgreSQL's one-order-per-user key rejects it, compensation follows
                    redis.sync().del(SkuSlot.single(activityId, 1).user(activityId));
                    reserve(activityId, activityId, queued);
                    TimeUnit.MILLISECONDS.sleep(300);
                }
                case AFTER_PAYMENT_RECORD_INSERT -> {
                    if (reserve(activityId, user, queued)) {
                        UUID order = awaitOrder(activityId, user);
                        SaleClient.Response p =
                                client().post("/api/v1/orders/" + order + "/payments", user(user), null);
                        if (p.status() == 201) {
                            SIM.pay(UUID.fromString((String) p.body().get("payment_id")), true);
                        }
                    }
                    TimeUnit.MILLISECONDS.sleep(300);
                }
                case AFTER_BUCKET_TRANSFER_OUT -> {
                    if (SkuSlot.forUser(activityId, 1, 2, user).bucket() == 0) {
                        reserve(activityId, user, queued);
                    }
                }
                case AFTER_CANCEL_PENDING -> {
                    reserve(activityId, user, queued);
                    TimeUnit.MILLISECONDS.sleep(500);
                }
                default -> {
                    reserve(activityId, user, queued);
                    TimeUnit.MILLISECONDS.sleep(20);
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process is going down, or is down: the loop checks
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean reserve(long activityId, long user, Set<String> queued) throws IOException, InterruptedException {
        SaleClient.Response r =
                client().reserve(user(user), activityId, 1, UUID.randomUUID().toString());
        if (r.status() == 202) {
            queued.add((String) r.body().get("reservation_id"));
            return true;
        }
        return false;
    }

    private UUID awaitOrder(long activityId, long user) {
        return Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> jdbc
                                .query(
                                        "SELECT order_id FROM orders WHERE activity_id = ? AND user_id = ?",
                                        (rs, i) -> rs.getObject(1, UUID.class),
                                        activityId,
                                        user)
                                .stream()
                                .findFirst()
                                .orElse(null),
                        java.util.Objects::nonNull);
    }

    private void awaitRecovered(String name, long activityId, Set<String> queued, boolean payments) {
        Awaitility.await(name + " recovery")
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    Long terminal = jdbc.queryForObject(
                            "SELECT count(*) FROM inventory_reservation WHERE reservation_id = "
                                    + "ANY (?::uuid[]) AND status IN ('ORDER_CREATED', 'CANCELLED', 'COMPENSATED', 'MANUAL_REVIEW')",
                            Long.class,
                            (Object) queued.toArray(String[]::new));
                    assertThat(terminal).as("QUEUED reservations terminal").isEqualTo(queued.size());
                    if (payments) {
                        assertThat(jdbc.queryForObject(
                                        "SELECT count(*) FROM orders WHERE activity_id = ? AND status IN "
                                                + "('CREATED', 'PAYING', 'CANCEL_PENDING')",
                                        Long.class,
                                        activityId))
                                .as("orders final")
                                .isZero();
                    }
                    SaleClient.Response inv =
                            client().get("/api/v1/admin/activities/" + activityId + "/invariants?quiet=true", admin());
                    assertThat(inv.body().get("pass")).as(inv.body().toString()).isEqualTo(true);
                });
    }

    private void ensureRunning() throws Exception {
        if (!app.alive()) {
            app.start();
        }
    }

    private void createSale(long activityId, int stock, int paymentTimeoutSeconds, int buckets) throws Exception {
        ChildSales.open(client(), client(), activityId, stock, paymentTimeoutSeconds, buckets);
    }

    private static SaleClient client() {
        return app.apiClient();
    }

    private static String admin() {
        return Tokens.admin(IntegrationTest.ADMIN_SECRET, "crash-test", Duration.ofHours(2));
    }

    private static String user(long userId) {
        return Tokens.user(IntegrationTest.USER_SECRET, userId, Duration.ofHours(2));
    }
}
