package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.engines.RedisClusterNodes;
import io.seckill.reconcile.Reconciler;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import io.seckill.support.OnRedisCluster;
import io.seckill.support.TestRedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * A season: one sale after another on the same Redis Cluster, as a team runs them all year. Each is closed out;
 * some lose a master mid-sale. Nothing a sale leaves behind may pile up in Redis: after the last sale's retention,
 * Redis holds what it held once the first sale's keys had expired.
 */
@Tag("slow")
@OnRedisCluster
@TestPropertySource(properties = "seckill.close-out.retention=3s")
class SeasonIT extends IntegrationTest {

    private static final Logger log = LoggerFactory.getLogger(SeasonIT.class);
    private static final int SALES = 20;
    private static final Pattern KEYS = Pattern.compile("db0:keys=(\\d+)");
    private static final Pattern DATASET = Pattern.compile("used_memory_dataset:(\\d+)");

    @Autowired
    Reconciler reconciler;

    @Test
    @DisplayName(
            "a season of 20 sales on one Redis Cluster, each closed out, a master failed over in two of them: every "
                    + "invariant after each sale; once the last retention passed, Redis holds as many keys as before the "
                    + "season and its data within 10% of it")
    void twentySales() throws Exception {
        RedisClusterNodes cluster = TestRedisCluster.get();
        long[] baseline = warmUp(cluster);
        log.info(
                "season: once every master served a sale and its keys expired: {} keys, {} bytes of data",
                baseline[0],
                baseline[1]);
        int failovers = 0;
        for (int n = 1; n <= SALES; n++) {
            long sale = openShortSale();
            int owner = cluster.ownerOf(SkuSlot.single(sale, 1).stock());
            // a failover in the 7th and the 14th sale, or the next one whose master has a replica in sync
            boolean failover =
                    failovers < n / 7 && cluster.onlineReplicaOf(owner).isPresent();
            List<String> admitted = new ArrayList<>();
            for (long user = 1; user <= 30; user++) {
                if (failover && user == 10) {
                    log.info("season: sale {} of {}: failing over master :{}", n, SALES, owner);
                    cluster.failover(owner);
                    failovers++;
                }
                SaleClient.Response r = reserve(n * 1_000L + user, sale, 1);
                assertThat(r.status()).as(r.body().toString()).isIn(202, 409, 503);
                if (r.status() == 202) {
                    admitted.add((String) r.body().get("reservation_id"));
                }
            }
            awaitEnded(sale, admitted);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofSeconds(1))
                    .untilAsserted(() -> {
                        reconciler.run(sale, Duration.ofMillis(1));
                        assertInvariants(sale, true);
                    });
            SaleClient.Response closed = client().post(
                            "/api/v1/admin/activities/" + sale + "/close-out?drain_seconds=60",
                            adminToken(),
                            Map.of("reason", "season sale " + n + " over"));
            assertThat(closed.status()).as(closed.body().toString()).isEqualTo(200);
            assertThat(closed.body()).containsEntry("drained", true).containsEntry("invariants_pass", true);
        }
        assertThat(failovers).as("masters failed over mid-sale").isEqualTo(2);
        assertThat(baseline[0]).as("nothing of the warm-up sales is left").isZero();
        long[] first = baseline;
        Awaitility.await()
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> assertThat(figures()[0])
                        .as("keys once every sale's retention passed")
                        .isLessThanOrEqualTo(first[0]));
        long[] after = figures();
        log.info("season: after the last sale's retention: {} keys, {} bytes of data", after[0], after[1]);
        assertThat((double) after[1]).as("Redis data").isLessThanOrEqualTo(first[1] * 1.1 + 64 * 1024);
    }

    /**
     * What Redis holds once each master has served a sale (its scripts loaded, its tables sized) and the keys of
     * those sales have expired: the baseline a season must come back to.
     */
    private long[] warmUp(RedisClusterNodes cluster) throws Exception {
        Set<Integer> served = new HashSet<>();
        List<Long> sales = new ArrayList<>();
        for (int attempt = 0; attempt < 24 && served.size() < cluster.masters().size(); attempt++) {
            long sale = openShortSale();
            served.add(cluster.ownerOf(SkuSlot.single(sale, 1).stock()));
            SaleClient.Response r = reserve(900_000L + attempt, sale, 1);
            assertThat(r.status()).as(r.body().toString()).isEqualTo(202);
            awaitEnded(sale, List.of((String) r.body().get("reservation_id")));
            assertThat(client().post(
                                    "/api/v1/admin/activities/" + sale + "/close-out?drain_seconds=60",
                                    adminToken(),
                                    Map.of("reason", "warm-up over"))
                            .status())
                    .isEqualTo(200);
            sales.add(sale);
        }
        assertThat(served)
                .as("every master served a warm-up sale")
                .hasSize(cluster.masters().size());
        for (long sale : sales) {
            awaitExpired(sale);
        }
        return figures();
    }

    /** A sale of 20 units whose orders can no longer move 4 s after it ends (deadline and payment timeout 2 s). */
    private long openShortSale() throws Exception {
        return openSale(2, 2, new int[] {20});
    }

    private void awaitExpired(long sale) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    long[] left = {0};
                    redis.nodes().scan(SkuSlot.salePattern(sale), key -> left[0]++);
                    return left[0] == 0;
                });
    }

    /** Keys and bytes of data over the masters serving slots now. */
    private long[] figures() {
        long keys = 0;
        long data = 0;
        for (String info : redis.masters().info("keyspace").values()) {
            Matcher m = KEYS.matcher(info);
            keys += m.find() ? Long.parseLong(m.group(1)) : 0;
        }
        for (Map.Entry<String, String> e : redis.masters().info("memory").entrySet()) {
            Matcher m = DATASET.matcher(e.getValue());
            data += m.find() ? Long.parseLong(m.group(1)) : 0;
            log.info(
                    "season: {} {}",
                    e.getKey(),
                    e.getValue()
                            .lines()
                            .filter(l -> l.startsWith("used_memory:")
                                    || l.startsWith("used_memory_dataset:")
                                    || l.startsWith("used_memory_overhead:")
                                    || l.startsWith("used_memory_scripts:")
                                    || l.startsWith("mem_clients_normal:")
                                    || l.startsWith("mem_replication_backlog:"))
                            .toList());
        }
        return new long[] {keys, data};
    }
}
