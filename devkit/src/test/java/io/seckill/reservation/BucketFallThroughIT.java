package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.activity.ActivityService;
import io.seckill.activity.SaleRegistry;
import io.seckill.cli.SaleClient;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.reconcile.Reconciler;
import io.seckill.redis.LuaScript;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.support.Buckets;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A hot SKU split over buckets sells as one stock (docs/SCALE-OUT.md, "Hot SKU over buckets"): a buyer
 * whose home bucket is empty gets a unit transferred from another bucket; {@code SOLD_OUT} only when
 * every bucket is empty; one attempt per user across buckets; a transfer stopped between its halves is
 * landed once; every bucket's books add up, and so do the SKU's.
 */
class BucketFallThroughIT extends IntegrationTest {

    @Autowired
    AdmissionLimiter limiter;

    @Autowired
    Reconciler reconciler;

    @Autowired
    BucketTransfers transfers;

    @Autowired
    SaleRegistry registry;

    @AfterEach
    void perUserLimitBack() {
        limiter.setMaxPerUserPerSecond(10);
    }

    @Test
    @DisplayName("every bucket but one is empty: 120 buyers homed on the empty ones race for the last 10 units and get "
            + "exactly those 10; the other 110 are told SOLD_OUT, which is then true of every bucket")
    void lastUnitsInOneBucket() throws Exception {
        long activityId = openBucketedSale(40, 4);
        for (int b = 1; b <= 3; b++) {
            for (long user : Buckets.homedIn(activityId, 4, b, 10, 1_000)) {
                assertThat(reserve(user, activityId, 1).status()).isEqualTo(202);
            }
        }
        assertThat(buckets(activityId))
                .extracting(ActivityService.BucketCounters::stock)
                .containsExactly(10L, 0L, 0L, 0L);
        double transferredBefore = counter("reservation.bucket.transfer");

        List<Long> late = new ArrayList<>();
        for (int b = 1; b <= 3; b++) {
            late.addAll(Buckets.homedIn(activityId, 4, b, 40, 100_000));
        }
        List<Integer> statuses = ContentionIT.race(late.size(), i -> reserve(late.get(i), activityId, 1));

        assertThat(statuses.stream().filter(s -> s == 202).count()).isEqualTo(10);
        assertThat(statuses.stream().filter(s -> s == 409).count()).isEqualTo(110);
        assertThat(counter("reservation.bucket.transfer") - transferredBefore).isEqualTo(10);
        assertThat(buckets(activityId))
                .extracting(ActivityService.BucketCounters::stock)
                .containsOnly(0L);
        assertBooksAddUp(activityId, 40);
        awaitSettled(activityId, 40);
        assertThat(count("SELECT count(DISTINCT user_id) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(40);
        assertThat(count("SELECT available_stock FROM sku_inventory WHERE activity_id = ?", activityId))
                .isZero();
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "one attempt per user across buckets: 50 concurrent requests of a buyer whose home bucket is empty make "
                    + "one reservation, and the units their transfers moved are still sold to others, none lost")
    void oneAttemptPerUserAcrossBuckets() throws Exception {
        // the per-user rate limit would answer most of these 429 first; this is about what the buckets hold
        limiter.setMaxPerUserPerSecond(0);
        long activityId = openBucketedSale(4, 4);
        long hot = nextBuyerOfAnEmptiedBucket(activityId, 4, 1, 2_000);
        List<Integer> statuses = ContentionIT.race(50, i -> reserve(hot, activityId, 1));
        assertThat(statuses.stream().filter(s -> s == 202).count()).isEqualTo(1);
        assertThat(statuses).containsOnly(202, 409);
        assertBooksAddUp(activityId, 4);

        List<Long> others = new ArrayList<>();
        for (int b = 0; b < 4; b++) {
            others.addAll(Buckets.homedIn(activityId, 4, b, 5, 300_000));
        }
        List<Integer> rest = ContentionIT.race(others.size(), i -> reserve(others.get(i), activityId, 1));
        assertThat(rest.stream().filter(s -> s == 202).count())
                .as("the two units left, wherever transfers put them")
                .isEqualTo(2);
        awaitSettled(activityId, 4);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ? AND user_id = ?", activityId, hot))
                .isEqualTo(1);
        assertBooksAddUp(activityId, 4);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("a transfer stopped between its halves (failpoint after_bucket_transfer_out): the unit is in transit, "
            + "counted, never lost; the reconciler lands it once and the buyer's retry gets it")
    void transferStoppedBetweenHalves() throws Exception {
        long activityId = openBucketedSale(2, 2);
        long buyer = nextBuyerOfAnEmptiedBucket(activityId, 2, 0, 4_000);

        Failpoints.arm(Failpoint.AFTER_BUCKET_TRANSFER_OUT, "throw*1");
        SaleClient.Response crashed = reserve(buyer, activityId, 1);
        assertThat(crashed.status()).as(crashed.body().toString()).isEqualTo(500);
        List<ActivityService.BucketCounters> mid = buckets(activityId);
        assertThat(mid.get(1).initial()).isZero();
        assertThat(mid.get(1).transferredOut()).isEqualTo(1);
        assertThat(mid.get(0).initial()).isEqualTo(1);
        assertBooksAddUp(activityId, 2);
        assertInvariants(activityId, false);

        Reconciler.Report report = reconciler.run(activityId, Duration.ofMillis(1));
        assertThat(report.repairs()).containsEntry("FINISH_BUCKET_TRANSFER", 1);
        assertThat(buckets(activityId))
                .extracting(ActivityService.BucketCounters::stock)
                .containsExactly(1L, 0L);
        assertThat(reconciler.run(activityId, Duration.ofMillis(1)).repairs())
                .doesNotContainKey("FINISH_BUCKET_TRANSFER");

        assertThat(reserve(buyer, activityId, 1).status()).isEqualTo(202);
        awaitSettled(activityId, 2);
        assertBooksAddUp(activityId, 2);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "a transfer landed by the reconciler and again by its buyer's script counts once: the marker holds its id")
    void landingTwiceCountsOnce() throws Exception {
        long activityId = openBucketedSale(6, 2);
        SkuSlot home = new SkuSlot(activityId, 1, 0, 2);
        SkuSlot source = home.sibling(1);
        String id = transfers.takeOne(source, home);
        assertThat(id).isNotNull();
        assertThat(transfers.finishStale(
                        registry.load(activityId).orElseThrow(),
                        registry.load(activityId).orElseThrow().sku(1),
                        Duration.ZERO))
                .isEqualTo(1);
        List<Object> again = LuaScript.load("land_transfer")
                .run(
                        redis,
                        new String[] {home.stock(), home.counter(), home.meta(), home.transferMarker(id)},
                        id,
                        "60000");
        assertThat(ScriptReply.text(again, 1)).isEqualTo("ALREADY_LANDED");
        assertThat(buckets(activityId))
                .extracting(ActivityService.BucketCounters::stock)
                .containsExactly(4L, 2L);
        assertThat(buckets(activityId))
                .extracting(ActivityService.BucketCounters::transferredOut)
                .containsOnly(0L);
        assertBooksAddUp(activityId, 6);
    }

    /**
     * A buyer homed in {@code bucket} (from user {@code from} on) reserves its one unit; the next user homed there,
     * who will find the home bucket empty.
     */
    private long nextBuyerOfAnEmptiedBucket(long activityId, int buckets, int bucket, long from) throws Exception {
        long first = Buckets.homedIn(activityId, buckets, bucket, 1, from).getFirst();
        assertThat(reserve(first, activityId, 1).status()).isEqualTo(202);
        return Buckets.homedIn(activityId, buckets, bucket, 1, first + 1).getFirst();
    }

    /** Per bucket initial = stock + open_reserved + committed; over the SKU, initial + in transit = what it was given. */
    private void assertBooksAddUp(long activityId, long units) {
        List<ActivityService.BucketCounters> buckets = buckets(activityId);
        assertThat(buckets)
                .allSatisfy(b -> assertThat(b.initial())
                        .as("bucket " + b.bucket() + " " + b)
                        .isEqualTo(b.stock() + b.openReserved() + b.committed()));
        assertThat(buckets.stream()
                        .mapToLong(b -> b.initial() + b.transferredOut())
                        .sum())
                .as(buckets.toString())
                .isEqualTo(units);
    }

    private List<ActivityService.BucketCounters> buckets(long activityId) {
        return activities.bucketCounters(
                activities.inventoryView(activityId).getFirst().pg());
    }
}
