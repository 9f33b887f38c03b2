package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.engines.RedisClusterNodes;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.redis.SkuSlot;
import io.seckill.support.BareRedisCluster;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.IntPredicate;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.ContextConfiguration;

/**
 * A Redis Cluster master without a replica hangs and stays hung: nothing fails it over, its slots time out,
 * the other masters serve on ({@code cluster-require-full-coverage no}). The safety nets that walk every slot of
 * every live sale - the send-due rescan and the deadline sweeper - must go on for the slots of the other masters.
 */
@Tag("slow")
@ContextConfiguration(initializers = BareRedisCluster.OnIt.class)
class HungMasterWithoutReplicaIT extends IntegrationTest {

    @Test
    @DisplayName(
            "a master without a replica hangs (SIGSTOP) for good: reservations of a SKU on another master whose first "
                    + "send failed still become orders through the rescan, those nothing can send are rejected at their "
                    + "business deadline, and the hung master's slots are retried with backoff, not on every pass")
    void aHungMasterStrandsNoOtherMaster() throws Exception {
        RedisClusterNodes cluster = BareRedisCluster.get();
        int hung = cluster.masters().getFirst().port();
        // the hung master's sale first: a pass that walks slots in order meets its slot before the others
        long stranded = saleWhere(() -> openSale(10), port -> port == hung);
        long resent = saleWhere(() -> openSale(20), port -> port != hung);
        long lapsed = saleWhere(() -> openSale(3, new int[] {5}), port -> port != hung);
        SkuSlot lapsedSlot = SkuSlot.single(lapsed, 1);
        double nodeFailuresBefore = counter("work.slot.failed", "worker", "send-due-scanner", "scope", "node");
        double sweepFailuresBefore = counter("work.slot.failed", "worker", "deadline-sweeper", "scope", "node");

        long pid = cluster.hang(hung);
        try {
            // each of these reservations is taken in Redis and its first send fails (the request answers 500)
            Failpoints.arm(Failpoint.AFTER_REDIS_RESERVE, "throw*25");
            for (long user = 1; user <= 20; user++) {
                assertThat(reserve(user, resent, 1).status()).isEqualTo(500);
            }
            for (long user = 21; user <= 25; user++) {
                assertThat(reserve(user, lapsed, 1).status()).isEqualTo(500);
            }
            // the lapsed sale's messages are lost for good (out of the rescan's index): only the deadline ends them
            List<String> unsendable = redis.sync().zrange(lapsedSlot.sendDue(), 0, -1);
            assertThat(unsendable).hasSize(5);
            redis.sync().del(lapsedSlot.sendDue());

            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        assertThat(count(
                                        "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status = "
                                                + "'ORDER_CREATED'",
                                        resent))
                                .as("re-sent while the other master hangs")
                                .isEqualTo(20);
                        assertThat(count(
                                        "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status = "
                                                + "'ORDER_REJECTED' AND reason_code = 'BUSINESS_DEADLINE_EXCEEDED'",
                                        lapsed))
                                .as("rejected at their deadline while the other master hangs")
                                .isEqualTo(5);
                    });
            assertThat(counter("work.slot.failed", "worker", "send-due-scanner", "scope", "node") - nodeFailuresBefore)
                    .as("the hung master's slot failed in the rescan, charged to the master")
                    .isPositive();
            assertThat(counter("work.slot.failed", "worker", "deadline-sweeper", "scope", "node") - sweepFailuresBefore)
                    .as("and in the sweep")
                    .isPositive();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(15))
                    .untilAsserted(() -> assertThat(counter("work.slot.skipped", "worker", "send-due-scanner"))
                            .as("its slots wait out the backoff between tries")
                            .isPositive());
        } finally {
            cluster.resume(pid);
        }
        compensation.runOnce("hung-master-test");
        awaitAllSettled(resent);
        awaitAllSettled(lapsed);
        assertInvariants(resent, true);
        assertInvariants(lapsed, true);
        assertInvariants(stranded, true);
    }

    private static long saleWhere(Callable<Long> open, IntPredicate owner) throws Exception {
        for (int attempt = 0; attempt < 24; attempt++) {
            long activityId = open.call();
            if (owner.test(
                    BareRedisCluster.get().ownerOf(SkuSlot.single(activityId, 1).stock()))) {
                return activityId;
            }
        }
        throw new IllegalStateException("no sale of 24 landed where the test needs it");
    }
}
