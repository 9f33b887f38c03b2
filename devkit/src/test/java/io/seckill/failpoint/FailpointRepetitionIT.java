package io.seckill.failpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.activity.ActivityService;
import io.seckill.cli.SaleClient;
import io.seckill.payment.PaymentTestBase;
import io.seckill.reconcile.Reconciler;
import io.seckill.redis.SkuSlot;
import io.seckill.support.Buckets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Each failpoint of DESIGN.md §13.3, repeated as a property: every repetition draws a random small
 * scenario (how many buyers, which action), arms the failpoint for one firing (the step of the
 * worker or request that reaches it is abandoned mid-way), drives the path through it and lets the
 * system recover; every batch ends with the guarantees (DESIGN.md, Guarantees) checked after recovery.
 *
 * <p>{@code -Dseckill.failpoint.repetitions=N} sets N (default 3); {@link FailpointSoakIT} runs 200
 * in the slow suite.
 */
class FailpointRepetitionIT extends PaymentTestBase {

    private static final Logger log = LoggerFactory.getLogger(FailpointRepetitionIT.class);
    private static final int BATCH = 25;
    private static final int BUSINESS_DEADLINE_SECONDS = 20;

    @Autowired
    Reconciler reconciler;

    /** How many repetitions per failpoint. */
    protected int repetitions() {
        return Integer.getInteger("seckill.failpoint.repetitions", 3);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Failpoint.class)
    void repeatedFailpoint(Failpoint point) throws Exception {
        String name = point.id();
        int reps = repetitions();
        long seed = Long.getLong("seckill.failpoint.seed", System.nanoTime());
        Random random = new Random(seed ^ name.hashCode());
        log.info("failpoint.repetition name={} repetitions={} seed={}", name, reps, seed);
        boolean compensating = point == Failpoint.AFTER_COMPENSATION_LUA;
        boolean transferring = point == Failpoint.AFTER_BUCKET_TRANSFER_OUT;
        // a short business deadline: a message that exhausted its redeliveries (bounded, then %DLQ%) while the
        // failpoint kept hitting it is still brought to a terminal state, by the deadline sweeper and compensation
        long activityId = transferring
                ? openBucketedSale(4 * reps + 8, 2)
                : openSale(BUSINESS_DEADLINE_SECONDS, new int[] {compensating ? 2 : 4 * reps + 8});
        if (transferring) {
            // every unit moves to bucket 1, so each buyer homed in bucket 0 takes one across
            Buckets.empty(redis, new SkuSlot(activityId, 1, 0, 2), new SkuSlot(activityId, 1, 1, 2));
        }
        Set<String> queued = ConcurrentHashMap.newKeySet();
        long userBase = activityId * 10;
        int users = 0;
        if (compensating) {
            placeOrder(activityId, 1, userBase + ++users);
        }
        for (int rep = 1; rep <= reps; rep++) {
            long before = Failpoints.fired().getOrDefault(name, 0L);
            String action = action(point, random);
            Failpoints.arm(name, action + "*1");
            switch (point) {
                case AFTER_PAYMENT_RECORD_INSERT -> {
                    long user = userBase + ++users;
                    UUID order = placeOrder(activityId, 1, user);
                    UUID payment = startPayment(user, order);
                    assertThat(sim.pay(payment, true)).isTrue();
                    Awaitility.await()
                            .atMost(Duration.ofSeconds(30))
                            .until(() -> orderStatus(order).equals("PAID"));
                }
                case AFTER_CANCEL_PENDING -> {
                    long user = userBase + ++users;
                    UUID order = placeOrder(activityId, 1, user);
                    if (random.nextBoolean()) {
                        startPayment(user, order);
                    }
                    expire(order);
                    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                        try {
                            worker.runOnce("repetition-" + name);
                        } catch (Failpoints.FailpointException e) {
                            log.info("payment pass abandoned at the failpoint");
                        }
                        return orderStatus(order).equals("CANCELLED");
                    });
                }
                case AFTER_COMPENSATION_LUA -> {
                    // the first buyer's one-attempt mark lost (as a failover loses it): Redis admits their next
                    // attempt, PostgreSQL's one-order-per-user key rejects it and its unit is compensated
                    redis.sync().del(SkuSlot.single(activityId, 1).user(userBase + 1));
                    reserveSome(activityId, List.of(userBase + 1), queued, true);
                    // one reading of both counts: read apart, the new row could land between them and pass unsettled
                    Awaitility.await()
                            .atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(50))
                            .until(() -> {
                                compensation.runOnce("repetition-" + name);
                                return Boolean.TRUE.equals(jdbc.queryForObject(
                                        "SELECT count(*) = ? AND count(*) FILTER (WHERE status "
                                                + "NOT IN ('COMPENSATED', 'ORDER_CREATED')) = 0 FROM inventory_reservation WHERE activity_id = ?",
                                        Boolean.class,
                                        queued.size() + 1,
                                        activityId));
                            });
                }
                case AFTER_BUCKET_TRANSFER_OUT -> {
                    // units a recovery landed in bucket 0 go back to bucket 1 first: every buyer must take one across
                    Buckets.empty(redis, new SkuSlot(activityId, 1, 0, 2), new SkuSlot(activityId, 1, 1, 2));
                    List<Long> buyers = Buckets.homedIn(activityId, 2, 0, 1 + random.nextInt(3), userBase + users + 1);
                    reserveSome(activityId, buyers, queued);
                    users = (int) (buyers.getLast() - userBase);
                }
                default ->
                    users += reserveSome(activityId, consecutive(userBase + users, 1 + random.nextInt(3)), queued);
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> Failpoints.fired().getOrDefault(name, 0L) > before);
            if (rep % BATCH == 0 || rep == reps) {
                Failpoints.disarmAll();
                recoverAndCheck(activityId, queued, transferring);
            }
        }
    }

    private static String action(Failpoint point, Random random) {
        if (point == Failpoint.DURING_COMMIT_RESPONSE) {
            return "lose-response";
        }
        return random.nextInt(5) == 0 ? "delay:" + (50 + random.nextInt(200)) + "%100" : "throw";
    }

    /** The {@code n} users after {@code user}. */
    private static List<Long> consecutive(long user, int n) {
        return java.util.stream.LongStream.rangeClosed(user + 1, user + n)
                .boxed()
                .toList();
    }

    /**
     * The buyers reserve concurrently; a 500 (the request died at a failpoint) or a 503 (the entry breaker
     * paused admission while sends fail) is retried with the same request id, as a client does.
     */
    private int reserveSome(long activityId, List<Long> buyers, Set<String> queued) throws Exception {
        return reserveSome(activityId, buyers, queued, false);
    }

    /** {@code heldBack}: the sale's only unit may be held after its return (SOLD_OUT is asked again until it ends). */
    private int reserveSome(long activityId, List<Long> buyers, Set<String> queued, boolean heldBack) throws Exception {
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        for (long user : buyers) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    String request = UUID.randomUUID().toString();
                    SaleClient.Response r = Awaitility.await()
                            .atMost(Duration.ofSeconds(30))
                            .pollDelay(Duration.ZERO)
                            .pollInterval(Duration.ofMillis(100))
                            .until(
                                    () -> client().reserve(userToken(user), activityId, 1, request),
                                    // a compensated unit went back to an empty bucket: held for the hold, then sold
                                    x -> x.status() != 500 && x.status() != 503 && (x.status() != 409 || !heldBack));
                    assertThat(r.status()).as(r.body().toString()).isEqualTo(202);
                    queued.add((String) r.body().get("reservation_id"));
                } catch (Throwable t) {
                    errors.add(t);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(errors).isEmpty();
        return buyers.size();
    }

    private void recoverAndCheck(long activityId, Set<String> queued, boolean transferring) {
        if (transferring) {
            // units whose transfer died between the halves are landed by the reconciler, each once
            reconciler.run(activityId, Duration.ofMillis(1));
            List<ActivityService.BucketCounters> buckets = activities.bucketCounters(
                    activities.inventoryView(activityId).getFirst().pg());
            assertThat(buckets).allSatisfy(b -> {
                assertThat(b.transferredOut())
                        .as("in transit from bucket " + b.bucket())
                        .isZero();
                assertThat(b.initial()).isEqualTo(b.stock() + b.openReserved() + b.committed());
            });
            assertThat(buckets.stream()
                            .mapToLong(ActivityService.BucketCounters::initial)
                            .sum())
                    .isEqualTo(4L * repetitions() + 8);
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    compensation.runOnce("repetition-recovery");
                    assertThat(invariants.terminal(queued))
                            .as("QUEUED reservations terminal")
                            .isEqualTo(queued.size());
                    assertThat(count(
                                    "SELECT count(*) FROM event_outbox WHERE aggregate_id IN (SELECT order_id FROM orders "
                                            + "WHERE activity_id = ?) AND status <> 'SENT'",
                                    activityId))
                            .isZero();
                    assertThat(activities.inventoryView(activityId)).allSatisfy(v -> {
                        assertThat(v.crossSystemDelta()).isZero();
                        assertThat(v.redis().openReserved()).isZero();
                    });
                });
        assertInvariants(activityId, true);
    }
}
