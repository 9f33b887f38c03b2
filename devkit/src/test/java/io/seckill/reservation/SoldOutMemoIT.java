package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.redis.SkuSlot;
import io.seckill.support.ApiOnlyChild;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Sold out, from memory (SPEC 1a): once every bucket of a SKU said it is empty, buyers are answered SOLD_OUT
 * without a Redis call; a unit that comes back is sellable again within a second.
 */
class SoldOutMemoIT extends IntegrationTest {

    @Autowired
    SoldOutMemo memo;

    @Test
    @DisplayName("a sold-out SKU is answered from memory, without calling Redis; a cancelled order's unit is sold "
            + "again within 1 s of its release reaching Redis; every invariant holds")
    void soldOutFromMemoryUntilAUnitComesBack() throws Exception {
        long activityId = openSale(2);
        UUID first = placeOrder(activityId, 1, 1);
        String request = UUID.randomUUID().toString();
        SaleClient.Response second = client().reserve(userToken(2), activityId, 1, request);
        assertThat(second.status()).as(second.body().toString()).isEqualTo(202);
        awaitSettled(activityId, 2);
        assertThat(reserve(3, activityId, 1).code()).isEqualTo("SOLD_OUT");
        SkuSlot slot = SkuSlot.single(activityId, 1);
        awaitRemembered(activityId, 1000);
        double fromMemory = memoAnswers();

        for (long u = 10; u < 30; u++) {
            assertThat(reserve(u, activityId, 1).code()).isEqualTo("SOLD_OUT");
        }

        assertThat(memoAnswers() - fromMemory)
                .as("answered from memory, no reserve script run")
                .isEqualTo(20);
        SaleClient.Response resent = client().reserve(userToken(2), activityId, 1, request);
        assertThat(resent.status())
                .as("a resent request still gets its reservation back: " + resent.body())
                .isEqualTo(202);
        assertThat(resent.body())
                .containsEntry("reservation_id", second.body().get("reservation_id"))
                .containsEntry("replayed", true);
        assertThat(memoAnswers() - fromMemory).isEqualTo(20);

        cancelAndAwaitRelease(first, slot);
        long released = System.nanoTime();
        long[] user = {100};
        SaleClient.Response admitted = Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> reserve(++user[0], activityId, 1), r -> r.status() == 202);
        Duration after = Duration.ofNanos(System.nanoTime() - released);

        assertThat(after).as("sellable again within a second of the release").isLessThan(Duration.ofSeconds(1));
        assertThat(admitted.code()).isEqualTo("QUEUED");
        assertThat(reserve(++user[0], activityId, 1).code()).isEqualTo("SOLD_OUT");
        awaitSettled(activityId, 3);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("a SKU in four buckets: remembered only once every bucket answered empty; a stock adjustment's units "
            + "are sold within 1 s, each once")
    void bucketsAndAnAdjustment() throws Exception {
        long activityId = openBucketedSale(4, 4);
        long u = 1;
        for (int sold = 0; sold < 4; u++) {
            if (reserve(u, activityId, 1).status() == 202) {
                sold++;
            }
        }
        assertThat(reserve(u++, activityId, 1).code()).isEqualTo("SOLD_OUT");
        awaitRemembered(activityId, 1000);
        double fromMemory = memoAnswers();
        assertThat(reserve(u++, activityId, 1).code()).isEqualTo("SOLD_OUT");
        assertThat(memoAnswers() - fromMemory).isEqualTo(1);

        SaleClient.Response adjusted = client().post(
                        "/api/v1/admin/activities/" + activityId + "/skus/1/adjust-stock",
                        adminToken(),
                        Map.of("delta", 2, "reason", "two units found in the warehouse"));
        assertThat(adjusted.status()).as(adjusted.body().toString()).isEqualTo(200);
        long added = System.nanoTime();
        long[] next = {u};
        int[] admitted = {0};
        long[] firstAdmittedNanos = {0};
        Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    if (reserve(next[0]++, activityId, 1).status() == 202 && admitted[0]++ == 0) {
                        firstAdmittedNanos[0] = System.nanoTime() - added;
                    }
                    return admitted[0] == 2;
                });
        u = next[0];
        assertThat(admitted[0]).as("both added units sold").isEqualTo(2);
        assertThat(Duration.ofNanos(firstAdmittedNanos[0])).isLessThan(Duration.ofSeconds(1));
        assertThat(reserve(u, activityId, 1).code()).isEqualTo("SOLD_OUT");
        awaitSettled(activityId, 6);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("another instance admits a buyer on a unit a cancel gave back, between two polls: the stock and "
            + "committed + open_reserved are where they were, yet the SKU is forgotten (admissions since)")
    void anAdmissionElsewhereForgetsTheSku() throws Exception {
        long activityId = soldOutAndRemembered().activityId();
        SkuSlot slot = SkuSlot.single(activityId, 1);
        double forgotten = meters.counter("reservation.sold_out_memo.forgotten").count();
        // the release of a cancel (committed - 1, stock + 1) and another instance's admission (stock - 1,
        // open_reserved + 1, admitted + 1), both between two polls
        redis.sync().hincrby(slot.counter(), "committed", -1);
        redis.sync().hincrby(slot.counter(), "open_reserved", 1);
        redis.sync().hincrby(slot.counter(), "admitted", 1);

        awaitForgottenThenAskedOfRedis(activityId, forgotten, 3000);
        redis.sync().hincrby(slot.counter(), "committed", 1);
        redis.sync().hincrby(slot.counter(), "open_reserved", -1);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("a cancelled order's unit is held longer than this instance answers from a memory it has not "
            + "confirmed: another instance admits a buyer on it while this one's polls are held back, and the buyer's "
            + "retry here gets its reservation back, not SOLD_OUT from memory")
    void aReservationMadeElsewhereSinceIsReplayed() throws Exception {
        SoldOut sale = soldOutAndRemembered();
        long activityId = sale.activityId();
        UUID first = sale.order();
        SkuSlot slot = SkuSlot.single(activityId, 1);
        // this instance's next poll held back: the window between an admission elsewhere and the poll that forgets
        // the SKU, as long as the test needs it
        memo.holdPolls(true);
        try {
            cancelAndAwaitRelease(first, slot);
            long returned = System.nanoTime();
            String request = UUID.randomUUID().toString();
            SaleClient elsewhere = ApiOnlyChild.get().client();
            SaleClient.Response admitted = Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> elsewhere.reserve(userToken(60), activityId, 1, request), r -> r.status() == 202);
            assertThat(Duration.ofNanos(System.nanoTime() - returned))
                    .as("the returned unit was held")
                    .isGreaterThanOrEqualTo(hold().minusMillis(20));
            double fromMemory = memoAnswers();
            double unconfirmed = unconfirmedAnswers();

            SaleClient.Response retried = client().reserve(userToken(60), activityId, 1, request);

            assertThat(retried.status()).as("the retry here: " + retried.body()).isEqualTo(202);
            assertThat(retried.body())
                    .containsEntry("reservation_id", admitted.body().get("reservation_id"))
                    .containsEntry("replayed", true);
            assertThat(reserve(61, activityId, 1).code()).isEqualTo("SOLD_OUT");
            assertThat(memoAnswers()).as("nothing answered from memory").isEqualTo(fromMemory);
            assertThat(unconfirmedAnswers() - unconfirmed).isEqualTo(2);
        } finally {
            memo.holdPolls(false);
        }
        awaitSettled(activityId, 2);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("the memo answers only while its last confirmation started less than the hold ago: polls held back "
            + "for longer, a buyer is asked of Redis; polls again, answered from memory")
    void anUnconfirmedMemoAsksRedis() throws Exception {
        long activityId = soldOutAndRemembered().activityId();
        memo.holdPolls(true);
        try {
            // new buyers until one is asked of Redis: answered from memory until the hold since the last
            // confirmation has passed, then not
            long[] user = {3};
            Awaitility.await()
                    .atMost(hold().plusSeconds(2))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        double fromMemory = memoAnswers();
                        double unconfirmed = unconfirmedAnswers();
                        assertThat(reserve(user[0]++, activityId, 1).code()).isEqualTo("SOLD_OUT");
                        return memoAnswers() == fromMemory && unconfirmedAnswers() - unconfirmed == 1;
                    });
            double fromMemory = memoAnswers();
            assertThat(reserve(user[0], activityId, 1).code()).isEqualTo("SOLD_OUT");
            assertThat(memoAnswers())
                    .as("still not from memory while unconfirmed")
                    .isEqualTo(fromMemory);
        } finally {
            memo.holdPolls(false);
        }
        awaitRemembered(activityId, 2000);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("remembering a SKU raises its bucket's hold of returned units to this instance's hold; a reading that "
            + "finds the bucket's hold lower (lost in a failover) forgets the SKU, and remembering it again raises it")
    void theBucketHoldsAtLeastAsLongAsThisInstanceTrusts() throws Exception {
        long activityId = soldOutAndRemembered().activityId();
        SkuSlot slot = SkuSlot.single(activityId, 1);
        String mine = Long.toString(hold().toMillis());
        assertThat(redis.sync().hget(slot.counter(), "hold_ms")).isEqualTo(mine);
        double forgotten = meters.counter("reservation.sold_out_memo.forgotten").count();

        redis.sync().hset(slot.counter(), "hold_ms", "100");

        awaitForgottenThenAskedOfRedis(activityId, forgotten, 4000);
        awaitRemembered(activityId, 4000);
        assertThat(redis.sync().hget(slot.counter(), "hold_ms")).isEqualTo(mine);
        assertInvariants(activityId, true);
    }

    /**
     * The next poll forgets the SKU (the forgotten count passes {@code forgottenBefore}), and then buyer {@code user}
     * is answered SOLD_OUT by Redis, not from memory.
     */
    private void awaitForgottenThenAskedOfRedis(long activityId, double forgottenBefore, long user) throws Exception {
        Awaitility.await()
                .atMost(Duration.ofSeconds(1))
                .until(() ->
                        meters.counter("reservation.sold_out_memo.forgotten").count() > forgottenBefore);
        double fromMemory = memoAnswers();
        assertThat(reserve(user, activityId, 1).code()).isEqualTo("SOLD_OUT");
        assertThat(memoAnswers()).as("asked Redis again").isEqualTo(fromMemory);
    }

    private Duration hold() {
        return props.admission().soldOutHold();
    }

    private double unconfirmedAnswers() {
        return meters.counter("reservation.sold_out_memo.unconfirmed").count();
    }

    /** Buyer 1 cancels {@code order}; returns once its unit is back in the bucket's stock. */
    private void cancelAndAwaitRelease(UUID order, SkuSlot slot) throws Exception {
        SaleClient.Response cancelled = client().post("/api/v1/orders/" + order + "/cancel", userToken(1), null);
        assertThat(cancelled.status()).as(cancelled.body().toString()).isEqualTo(200);
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> "1".equals(redis.sync().get(slot.stock())));
    }

    /** A sale of one unit and the order that took it. */
    private record SoldOut(long activityId, UUID order) {}

    /** A sale of one unit, ordered by buyer 1, answered SOLD_OUT to buyer 2 and then remembered. */
    private SoldOut soldOutAndRemembered() throws Exception {
        long activityId = openSale(1);
        UUID order = placeOrder(activityId, 1, 1);
        assertThat(reserve(2, activityId, 1).code()).isEqualTo("SOLD_OUT");
        awaitRemembered(activityId, 1000);
        return new SoldOut(activityId, order);
    }

    /** Once a SKU answered SOLD_OUT, the next poll remembers it: new buyers (from {@code firstUser}) ask until then. */
    private void awaitRemembered(long activityId, long firstUser) {
        long[] user = {firstUser};
        Awaitility.await()
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    double before = memoAnswers();
                    assertThat(reserve(++user[0], activityId, 1).code()).isEqualTo("SOLD_OUT");
                    return memoAnswers() > before;
                });
    }

    private double memoAnswers() {
        return meters.counter("reservation.sold_out_from_memory").count();
    }
}
