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
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

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
        long activityId = TestRedisCluster.saleOnReplicatedMaster(() -> openSale(60));
        RedisClusterNodes cluster = TestRedisCluster.get();
        int ownerPort = cluster.ownerOf(SkuSlot.single(activityId, 1).stock());

        List<String> admitted;
        try (SteadyBuyers buyers = SteadyBuyers.start(user -> reserve(user, activityId, 1))) {
            buyers.awaitMoreAdmitted(10, Duration.ofSeconds(30));
            int promoted = cluster.failover(ownerPort);
            assertThat(cluster.isMaster(promoted)).isTrue();
            // admission goes on against the promoted replica
            buyers.awaitMoreAdmitted(10, Duration.ofSeconds(60));
            buyers.close();
            assertThat(buyers.statuses().keySet())
                    .as("answers during the failover: " + buyers.statuses())
                    .isSubsetOf(202, 409, 503);
            if (buyers.statuses().containsKey(503)) {
                assertThat(meters.counter("reservation.refused", "reason", "redis_unavailable")
                                        .count()
                                + meters.counter("reservation.refused", "reason", "admission_paused")
                                        .count())
                        .as("every refusal while the master was gone is counted")
                        .isPositive();
            }
            admitted = buyers.queued();
        }
        awaitEnded(activityId, admitted);
        // a write the old master acknowledged but never replicated is PostgreSQL's to restore: reconciliation
        Awaitility.await()
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofSeconds(2))
                .untilAsserted(() -> {
                    reconciler.run(activityId, Duration.ofMillis(1));
                    assertInvariants(activityId, true);
                });
    }
}
