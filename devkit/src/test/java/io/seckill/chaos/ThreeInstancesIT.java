package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import io.seckill.api.Tokens;
import io.seckill.cli.SaleClient;
import io.seckill.engines.AppProcess;
import io.seckill.engines.EmbeddedEngines;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TestChildApps;
import io.seckill.support.TestEngines;
import io.seckill.support.TestRedisCluster;

/**
 * Three instances of {@code serve} - every role in each - on one PostgreSQL, one broker and the Redis
 * Cluster: the consumers share one group, the workers share the tables by leases, and a sale whose
 * buyers are spread over the three ends with every guarantee.
 */
@Tag("slow")
class ThreeInstancesIT {

    private static final Pattern CONSUMED = Pattern.compile("^order_consume_total\\{[^}]*\\} ([0-9.E]+)", Pattern.MULTILINE);
    private static final List<AppProcess> APPS = new ArrayList<>();
    private static JdbcTemplate jdbc;

    @BeforeAll
    static void startInstances() throws Exception {
        EmbeddedEngines engines = TestEngines.get();
        Map<String, String> p = TestChildApps.properties("three");
        p.put("seckill.redis-cluster", TestRedisCluster.get().seeds());
        // topics and groups of their own: no other application in this JVM's tests consumes them
        p.put("seckill.mq.order-request-topic", "SECKILL_ORDER_REQUEST_THREE");
        p.put("seckill.mq.order-event-topic", "SECKILL_ORDER_EVENT_THREE");
        p.put("seckill.mq.order-consumer-group", "seckill-order-consumer-three");
        p.put("seckill.mq.projection-group", "seckill-projection-three");
        p.put("logging.level.io.seckill", "INFO");
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
    }

    @AfterAll
    static void stopInstances() throws Exception {
        for (AppProcess app : APPS) {
            app.close();
        }
    }

    @Test
    @DisplayName("three app instances, buyers spread over them: the order work is shared, each unit sold once, one order "
            + "per user, every QUEUED reservation ends, every invariant PASS")
    void saleOverThreeInstances() throws Exception {
        long activityId = Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000_000L) + 1;
        String admin = Tokens.admin(IntegrationTest.ADMIN_SECRET, "test", Duration.ofMinutes(30));
        SaleClient first = new SaleClient(APPS.getFirst().url());
        Instant now = Instant.now();
        SaleClient.Response created = first.post("/api/v1/admin/activities", admin, Map.of("activity_id", activityId,
                "name", "three instances", "starts_at", now.minusSeconds(5).toString(), "ends_at", now.plusSeconds(3600)
                        .toString(), "business_deadline_seconds", 300, "payment_timeout_seconds", 900,
                "skus", List.of(Map.of("sku_id", 1, "price", new BigDecimal("10.50"), "stock", 100))));
        assertThat(created.status()).as(created.body().toString()).isEqualTo(201);
        assertThat(first.post("/api/v1/admin/activities/" + activityId + "/warm", admin, null).status()).isEqualTo(200);
        assertThat(new SaleClient(APPS.get(1).url()).post("/api/v1/admin/activities/" + activityId + "/open", admin, null)
                .status()).isEqualTo(200);

        Set<String> queued = ConcurrentHashMap.newKeySet();
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        try (ExecutorService buyers = Executors.newFixedThreadPool(16)) {
            List<Future<?>> all = new ArrayList<>();
            for (long user = 1; user <= 400; user++) {
                long u = user;
                SaleClient instance = new SaleClient(APPS.get((int) (u % 3)).url());
                all.add(buyers.submit(() -> {
                    SaleClient.Response r = instance.reserve(Tokens.user(IntegrationTest.USER_SECRET, u, Duration.ofMinutes(10)),
                            activityId, 1, UUID.randomUUID().toString());
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
        Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            assertThat(jdbc.queryForObject("SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> "
                    + "'RESERVED'", Long.class, activityId)).isEqualTo(100);
            Map<String, Object> inv = new SaleClient(APPS.get(2).url()).get("/api/v1/admin/activities/" + activityId
                    + "/invariants", admin).body();
            assertThat(inv.get("pass")).as(inv.toString()).isEqualTo(true);
        });
        assertThat(jdbc.queryForObject("SELECT count(*) FROM orders WHERE activity_id = ?", Long.class, activityId))
                .isEqualTo(100);
        long sharing = APPS.stream().filter(app -> consumed(app) > 0).count();
        assertThat(sharing).as("instances whose consumer created orders (one group, queues shared)").isGreaterThan(1);
    }

    private static double consumed(AppProcess app) {
        try {
            Matcher m = CONSUMED.matcher(new SaleClient(app.managementUrl()).getText("/actuator/prometheus"));
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
