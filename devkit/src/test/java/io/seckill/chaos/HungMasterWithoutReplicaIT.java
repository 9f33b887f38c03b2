package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.engines.RedisClusterNodes;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.redis.SkuSlot;
import io.seckill.support.BareRedisCluster;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.stream.LongStream;
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

    @Test
    @DisplayName("a buyer whose home bucket is empty falls through to a bucket on a hung master: the hung master's "
            + "breaker is charged, not the home master's, and buyers of another sale on the home master are admitted")
    void fallThroughIsChargedToTheMasterThatServedIt() throws Exception {
        RedisClusterNodes cluster = BareRedisCluster.get();
        // one unit in each of two buckets on two masters: bucket 1's master is the one that will hang
        long split = 0;
        for (int attempt = 0; attempt < 40 && split == 0; attempt++) {
            long id = openBucketedSale(2, 2);
            if (cluster.ownerOf(new SkuSlot(id, 1, 0, 2).stock())
                    != cluster.ownerOf(new SkuSlot(id, 1, 1, 2).stock())) {
                split = id;
            }
        }
        assertThat(split).as("a two-bucket sale split over two masters").isPositive();
        long sale = split;
        int home = cluster.ownerOf(new SkuSlot(sale, 1, 0, 2).stock());
        int hung = cluster.ownerOf(new SkuSlot(sale, 1, 1, 2).stock());
        long neighbour = saleWhere(() -> openSale(100), port -> port == home);
        List<Long> homeBuyers = LongStream.range(1_000, 2_000)
                .filter(u -> SkuSlot.forUser(sale, 1, 2, u).bucket() == 0)
                .limit(13)
                .boxed()
                .toList();
        assertThat(reserve(homeBuyers.getFirst(), sale, 1).status())
                .as("the home bucket's one unit")
                .isEqualTo(202);

        long pid = cluster.hang(hung);
        List<Integer> answers;
        try {
            ExecutorService buyers = Executors.newFixedThreadPool(12);
            try {
                List<Future<Integer>> calls = new ArrayList<>();
                for (long user : homeBuyers.subList(1, 13)) {
                    calls.add(buyers.submit(() -> reserve(user, sale, 1).status()));
                }
                answers = new ArrayList<>();
                for (Future<Integer> call : calls) {
                    answers.add(call.get(30, TimeUnit.SECONDS));
                }
            } finally {
                buyers.shutdownNow();
            }
            assertThat(answers)
                    .as("the other bucket may hold a unit but does not answer: retry later, never sold out")
                    .containsOnly(503);
            assertThat(meters.find("redis.breaker.open")
                            .tag("node", "127.0.0.1:" + home)
                            .gauge()
                            .value())
                    .as("the home master's breaker")
                    .isZero();
            assertThat(reserve(5_000, neighbour, 1).status())
                    .as("a buyer of another sale on the home master")
                    .isEqualTo(202);
        } finally {
            cluster.resume(pid);
        }
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
