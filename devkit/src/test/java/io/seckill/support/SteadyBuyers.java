package io.seckill.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.awaitility.Awaitility;

import io.seckill.cli.SaleClient;

/**
 * Buyers of one SKU arriving one after another (users 1, 2, ...) every 20 ms while a fault comes and goes:
 * every answer counted by status, every admitted reservation kept.
 */
public final class SteadyBuyers implements AutoCloseable {

    /** One buyer's reserve call. */
    public interface Reserve {
        SaleClient.Response call(long userId) throws Exception;
    }

    private final Map<Integer, Integer> statuses = new TreeMap<>();
    private final List<String> queued = new ArrayList<>();
    private final AtomicBoolean buying = new AtomicBoolean(true);
    private final CompletableFuture<Void> loop;

    private SteadyBuyers(Reserve reserve) {
        loop = CompletableFuture.runAsync(() -> {
            for (long user = 1; buying.get(); user++) {
                try {
                    SaleClient.Response r = reserve.call(user);
                    synchronized (this) {
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
    }

    public static SteadyBuyers start(Reserve reserve) {
        return new SteadyBuyers(reserve);
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
        loop.join();
    }

    /** Answers so far, by HTTP status. */
    public synchronized Map<Integer, Integer> statuses() {
        return java.util.Collections.unmodifiableMap(new TreeMap<>(statuses));
    }

    /** The reservation ids admitted so far. */
    public synchronized List<String> queued() {
        return List.copyOf(queued);
    }
}
