package io.seckill.support;

import io.seckill.cli.SaleClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;

/**
 * Buyers of one SKU arriving while a fault comes and goes: {@code loops} buyers at a time, each loop a
 * buyer after another (user ids never repeat) with a pause between calls; every answer counted by
 * status, every admitted reservation kept.
 */
public final class SteadyBuyers implements AutoCloseable {

    /** One buyer's reserve call. */
    public interface Reserve {
        SaleClient.Response call(long userId) throws Exception;
    }

    private final Map<Integer, Integer> statuses = new TreeMap<>();
    private final Map<String, Integer> codes = new TreeMap<>();
    private final List<String> queued = new ArrayList<>();
    private final AtomicBoolean buying = new AtomicBoolean(true);
    private final CompletableFuture<Void> loops;

    private SteadyBuyers(int loops, Duration pause, Reserve reserve) {
        List<CompletableFuture<Void>> each = new ArrayList<>();
        for (int k = 1; k <= loops; k++) {
            long first = k;
            each.add(CompletableFuture.runAsync(
                    () -> {
                        for (long user = first; buying.get(); user += loops) {
                            try {
                                SaleClient.Response r = reserve.call(user);
                                synchronized (this) {
                                    statuses.merge(r.status(), 1, Integer::sum);
                                    codes.merge(r.status() + " " + r.code(), 1, Integer::sum);
                                    if (r.status() == 202) {
                                        queued.add((String) r.body().get("reservation_id"));
                                    }
                                }
                                TimeUnit.NANOSECONDS.sleep(pause.toNanos());
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        }
                    },
                    task -> Thread.ofVirtual().name("buyer-", first).start(task)));
        }
        this.loops = CompletableFuture.allOf(each.toArray(CompletableFuture[]::new));
    }

    /** One buyer after another, every 20 ms. */
    public static SteadyBuyers start(Reserve reserve) {
        return new SteadyBuyers(1, Duration.ofMillis(20), reserve);
    }

    /** {@code loops} buyers at a time, each loop pausing {@code pause} between calls. */
    public static SteadyBuyers start(int loops, Duration pause, Reserve reserve) {
        return new SteadyBuyers(loops, pause, reserve);
    }

    /** Reservations admitted so far. */
    public synchronized int admitted() {
        return queued.size();
    }

    /** Waits until {@code more} reservations are admitted beyond those so far. */
    public void awaitMoreAdmitted(int more, Duration within) {
        int target = admitted() + more;
        Awaitility.await().atMost(within).until(() -> admitted() >= target);
    }

    /** Stops the buyers and waits for the last call; a buyer's call that threw fails here. */
    @Override
    public void close() {
        buying.set(false);
        loops.join();
    }

    /** Answers so far, by HTTP status. */
    public synchronized Map<Integer, Integer> statuses() {
        return java.util.Collections.unmodifiableMap(new TreeMap<>(statuses));
    }

    /** Answers so far, by HTTP status and code ({@code 503 ADMISSION_PAUSED}), for a failure's message. */
    public synchronized Map<String, Integer> codes() {
        return java.util.Collections.unmodifiableMap(new TreeMap<>(codes));
    }

    /** The reservation ids admitted so far. */
    public synchronized List<String> queued() {
        return List.copyOf(queued);
    }
}
