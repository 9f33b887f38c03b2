package io.seckill.bench;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.ReservationIds;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** A closed loop of buyers: each thread reserves back to back, every call for a user never seen before. */
final class ClosedLoop {

    private ClosedLoop() {}

    /** One buyer thread: one reservation per call. */
    interface Buyer extends AutoCloseable {
        void buy(long user) throws Exception;

        @Override
        default void close() {}
    }

    /** One reservation by {@code reserve.lua} (loaded as {@code sha}) in {@code slot}, as admission makes it, for a new request. */
    static void reserve(
            RedisClusterCommands<String, String> redis, String sha, ReservationIds ids, SkuSlot slot, long user) {
        UUID request = UUID.randomUUID();
        UUID rid = ids.reservationId(1, slot.activityId(), slot.skuId(), user, request);
        redis.evalsha(
                sha,
                ScriptOutputType.MULTI,
                new String[] {
                    slot.stock(),
                    slot.counter(),
                    slot.meta(),
                    slot.request(user, request.toString()),
                    slot.user(user),
                    slot.sendDue(),
                    slot.deadlines(),
                    slot.reservation(rid.toString())
                },
                rid.toString(),
                ids.messageId(1, rid).toString(),
                request.toString(),
                Long.toString(user),
                Long.toString(slot.activityId()),
                Long.toString(slot.skuId()),
                "1",
                "5000",
                "600000",
                "86400000");
    }

    /**
     * {@code threads} threads, each with its own buyer, reserve for {@code seconds}, users numbered from
     * {@code firstUser} on; prints and returns the reservations per second.
     */
    static double run(String label, long firstUser, int threads, int seconds, Callable<Buyer> perThread)
            throws Exception {
        AtomicLong done = new AtomicLong();
        AtomicLong users = new AtomicLong(firstUser);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                fs.add(pool.submit(() -> {
                    try (Buyer buyer = perThread.call()) {
                        while (System.nanoTime() < end) {
                            buyer.buy(users.incrementAndGet());
                            done.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
        double rate = done.get() / (double) seconds;
        System.out.printf("[%s] %,.0f reservations/s%n", label, rate);
        return rate;
    }
}
