package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.engines.RedisClusterNodes;
import io.seckill.reconcile.Reconciler;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import io.seckill.support.OnRedisCluster;
import io.seckill.support.SteadyBuyers;
import io.seckill.support.TestRedisCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A Redis Cluster master hangs mid-sale - its connections stay open and nothing is answered, as a
 * stalled process or a master behind a partition - and the cluster promotes its replica. Nothing closes
 * the application's connection to the old master for it.
 */
@OnRedisCluster
class RedisMasterHangIT extends IntegrationTest {

    private static final Logger log = LoggerFactory.getLogger(RedisMasterHangIT.class);

    @Autowired
    Reconciler reconciler;

    @Test
    @DisplayName("the master holding a hot SKU hangs (SIGSTOP) mid-sale and the cluster promotes its replica: answers "
            + "are 202, 409 or 503 (never a 500), admission resumes on the promoted replica within 20 s of the promotion "
            + "while the old master is still silent, buyers of a SKU on another master are admitted all along (202 "
            + "only), the old master comes back as a replica, every QUEUED reservation ends, every invariant PASS")
    void hungMasterIsFailedOver() throws Exception {
        RedisClusterNodes cluster = TestRedisCluster.get();
        long sale = TestRedisCluster.saleOnReplicatedMaster(() -> openSale(5_000));
        int owner = cluster.ownerOf(SkuSlot.single(sale, 1).stock());
        int replica = cluster.onlineReplicaOf(owner).orElseThrow();
        long elsewhere = TestRedisCluster.saleOnAnotherMaster(() -> openSale(5_000), owner);

        List<String> admitted;
        List<String> admittedElsewhere;
        double refusedBefore = refusedOn(owner);
        // sixteen buyers at a time on the hot SKU: calls held by the hung master would soon hold every request thread
        try (SteadyBuyers buyers = SteadyBuyers.start(16, Duration.ofMillis(100), user -> reserve(user, sale, 1));
                SteadyBuyers others = SteadyBuyers.start(user -> reserve(user, elsewhere, 1))) {
            others.awaitMoreAdmitted(10, Duration.ofSeconds(30));
            buyers.awaitMoreAdmitted(10, Duration.ofSeconds(30));
            long pid = cluster.hang(owner);
            long hungAt = System.nanoTime();
            long promotedAt;
            long admittingAt;
            try {
                cluster.awaitMaster(replica);
                promotedAt = System.nanoTime();
                // the old master still hung: the client has to find the promoted replica by itself
                buyers.awaitMoreAdmitted(10, Duration.ofSeconds(20));
                admittingAt = System.nanoTime();
            } finally {
                cluster.resume(pid);
            }
            log.info(
                    "redis master hang: promoted {} ms after the hang, 10 admitted {} ms after the promotion",
                    TimeUnit.NANOSECONDS.toMillis(promotedAt - hungAt),
                    TimeUnit.NANOSECONDS.toMillis(admittingAt - promotedAt));
            cluster.awaitRejoined(owner);
            buyers.awaitMoreAdmitted(10, Duration.ofSeconds(20));
            buyers.close();
            assertThat(buyers.statuses().keySet())
                    .as("answers around the hang: " + buyers.statuses())
                    .isSubsetOf(202, 409, 503);
            assertThat(buyers.statuses().getOrDefault(503, 0))
                    .as("refused while the master hung: " + buyers.statuses())
                    .isPositive();
            assertThat(refusedOn(owner) - refusedBefore)
                    .as("calls refused at once by the hung master's own breaker, " + "not left to time out")
                    .isPositive();
            admitted = buyers.queued();
            others.close();
            assertThat(others.statuses())
                    .as("buyers of a SKU on another master, all along: " + others.codes())
                    .containsOnlyKeys(202);
            admittedElsewhere = others.queued();
        }
        assertThat(meters.counter("reservation.refused", "reason", "redis_unavailable")
                                .count()
                        + meters.counter("reservation.refused", "reason", "admission_paused")
                                .count())
                .as("every refusal while the master hung is counted")
                .isPositive();
        awaitEnded(sale, admitted);
        awaitEnded(elsewhere, admittedElsewhere);
        // scripts the old master ran on waking, before it heard it was demoted, went with its data set. What it
        // acknowledged and had not yet replicated when it stopped is gone from Redis too: reconciliation restores
        // those reservations' hashes from PostgreSQL and recalibrates the SKU's counters (fault row 13)
        Awaitility.await()
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofSeconds(2))
                .untilAsserted(() -> {
                    Reconciler.Report report = reconciler.run(sale, Duration.ofMillis(1));
                    log.info("redis master hang: reconciliation {}", report);
                    assertInvariants(sale, true);
                });
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE activity_id = ? AND anomaly_type = 'CROSS_SYSTEM_DELTA' "
                                + "AND status = 'OPEN'",
                        sale))
                .as("nothing left for a person")
                .isZero();
        log.info(
                "redis master hang: recalibrations after lost writes: {}",
                count(
                        "SELECT count(*) FROM audit_log WHERE action = 'REDIS_RECALIBRATION' AND object_id = ?",
                        sale + ":1"));
        assertInvariants(elsewhere, true);
    }

    private double refusedOn(int port) {
        return meters.find("redis.breaker.refused").tag("node", "127.0.0.1:" + port).counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count)
                .sum();
    }
}
