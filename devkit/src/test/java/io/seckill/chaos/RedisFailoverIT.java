package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import io.seckill.cli.SaleClient;
import io.seckill.engines.RedisClusterNodes;
import io.seckill.invariants.InvariantChecker;
import io.seckill.reconcile.Reconciler;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import io.seckill.support.OnRedisCluster;
import io.seckill.support.TestRedisCluster;

/** A Redis Cluster master dies mid-sale and its replica is promoted: admission fails closed, then goes on. */
@Tag("slow")
@OnRedisCluster
class RedisFailoverIT extends IntegrationTest {

    @Autowired
    Reconciler reconciler;

    @Test
    @DisplayName("the master holding a hot SKU dies mid-sale and its replica is promoted: answers are 202, 503 or "
            + "SOLD_OUT (never a 500), admission resumes, every QUEUED reservation ends, every invariant PASS")
    void masterFailoverMidSale() throws Exception {
        long activityId = openSale(60);
        String stockKey = SkuSlot.single(activityId, 1).stock();
        RedisClusterNodes cluster = TestRedisCluster.get();
        int ownerPort = ownerOf(cluster.masters().getFirst(), stockKey);

        Map<Integer, Integer> statuses = new TreeMap<>();
        List<String> queued = new ArrayList<>();
        AtomicBoolean buying = new AtomicBoolean(true);
        CompletableFuture<Void> buyers = CompletableFuture.runAsync(() -> {
            for (long user = 1; buying.get(); user++) {
                try {
                    SaleClient.Response r = reserve(user, activityId, 1);
                    synchronized (statuses) {
                        statuses.merge(r.status(), 1, Integer::sum);
                        if (r.status() == 202) {
                            queued.add((String) r.body().get("reservation_id"));
                        }
                    }
                    TimeUnit.MILLISECONDS.sleep(20);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
            synchronized (statuses) {
                return queued.size() >= 10;
            }
        });
        int promoted = cluster.failover(ownerPort);
        assertThat(cluster.isMaster(promoted)).isTrue();
        // admission goes on against the promoted replica
        int before;
        synchronized (statuses) {
            before = queued.size();
        }
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            synchronized (statuses) {
                return queued.size() >= before + 10;
            }
        });
        buying.set(false);
        buyers.join();

        assertThat(statuses.keySet()).as("answers during the failover: " + statuses).isSubsetOf(202, 409, 503);
        if (statuses.containsKey(503)) {
            assertThat(meters.counter("reservation.refused", "reason", "redis_unavailable").count()
                    + meters.counter("reservation.refused", "reason", "admission_paused").count())
                    .as("every refusal while the master was gone is counted").isPositive();
        }
        List<String> admitted;
        synchronized (statuses) {
            admitted = List.copyOf(queued);
        }
        Awaitility.await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(count(
                "SELECT count(*) FROM inventory_reservation WHERE reservation_id = ANY (?::uuid[]) AND status <> 'RESERVED'",
                (Object) admitted.toArray(String[]::new))).isEqualTo(admitted.size()));
        List<InvariantChecker.Check> pg = invariants.check(activityId, false);
        assertThat(pg).allSatisfy(c -> assertThat(c.pass()).as(c.name() + ": " + c.detail()).isTrue());
        // a write the old master acknowledged but never replicated is PostgreSQL's to restore: reconciliation
        Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(2)).untilAsserted(() -> {
            reconciler.run(activityId, Duration.ofMillis(1));
            assertInvariants(activityId, true);
        });
    }

    /** The port of the master serving {@code key}: the one asked, or the one its MOVED answer names. */
    private static int ownerOf(RedisClusterNodes.Node asked, String key) {
        io.lettuce.core.RedisClient c = io.lettuce.core.RedisClient.create(asked.uri());
        try (var conn = c.connect()) {
            conn.sync().exists(key);
            return asked.port();
        } catch (io.lettuce.core.RedisCommandExecutionException e) {
            assertThat(e.getMessage()).startsWith("MOVED");
            return Integer.parseInt(e.getMessage().substring(e.getMessage().lastIndexOf(':') + 1).trim());
        } finally {
            c.shutdown();
        }
    }
}
