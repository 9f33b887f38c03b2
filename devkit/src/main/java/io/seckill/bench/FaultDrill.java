package io.seckill.bench;

import io.seckill.api.Tokens;
import io.seckill.cli.SaleClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One fault drill, run the same way against the engine and against the naive baseline: {@link #UNITS}
 * units, {@link #BUYERS} buyers from {@link #CLIENTS} clients, the first {@link #TWICE} of them sending
 * their request twice at the same moment (a double click, a client retry), and PostgreSQL stalled for
 * {@link #STALL} (a table lock held by another session) a tenth of the way in, while the
 * stock is still selling.
 */
final class FaultDrill {

    static final int UNITS = 200;
    static final int BUYERS = 400;
    static final int TWICE = 100;
    static final int CLIENTS = 32;
    static final Duration STALL = Duration.ofSeconds(3);

    /** What the buyers were answered. */
    record Answers(Map<Integer, Long> statuses, long requests) {}

    /** The same facts for either design, read after the drill (and, for the engine, after its pipeline drained). */
    record Facts(long orders, long usersWithSeveralOrders, long redisStock) {

        long unitsUnaccounted() {
            return UNITS - redisStock - orders;
        }

        List<String> verdicts() {
            return List.of(
                    verdict(orders <= UNITS, orders + " orders for " + UNITS + " units"),
                    verdict(redisStock >= 0, "Redis stock " + redisStock),
                    verdict(usersWithSeveralOrders == 0, usersWithSeveralOrders + " buyers with more than one order"),
                    verdict(
                            unitsUnaccounted() == 0,
                            "Redis stock " + redisStock + " + " + orders + " orders = " + (redisStock + orders) + " of "
                                    + UNITS));
        }

        private static String verdict(boolean pass, String detail) {
            return (pass ? "pass" : "FAIL") + " (" + detail + ")";
        }
    }

    private FaultDrill() {}

    /**
     * Drives the drill at {@code base + path}; {@code stalledTable} is locked for {@link #STALL} once a
     * tenth of the requests have been answered.
     */
    static Answers run(String base, String path, String userSecret, long firstUser, String jdbcUrl, String stalledTable)
            throws Exception {
        SaleClient client = new SaleClient(base);
        Map<Integer, Long> statuses = new ConcurrentHashMap<>();
        AtomicLong answered = new AtomicLong();
        AtomicReference<CompletableFuture<Void>> stalled = new AtomicReference<>();
        long total = BUYERS + TWICE;
        try (ExecutorService pool = Executors.newFixedThreadPool(CLIENTS)) {
            List<Future<?>> fs = new ArrayList<>();
            for (int b = 0; b < BUYERS; b++) {
                long user = firstUser + b;
                String token = Tokens.user(userSecret, user, Duration.ofHours(1));
                Map<String, String> body =
                        Map.of("request_id", UUID.randomUUID().toString());
                int copies = b < TWICE ? 2 : 1;
                CyclicBarrier together = new CyclicBarrier(copies);
                for (int c = 0; c < copies; c++) {
                    fs.add(pool.submit(() -> {
                        together.await(10, TimeUnit.SECONDS);
                        int status = client.post(path, token, body).status();
                        statuses.merge(status, 1L, Long::sum);
                        if (answered.incrementAndGet() == total / 10) {
                            stalled.set(CompletableFuture.runAsync(() -> stall(jdbcUrl, stalledTable)));
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
        if (stalled.get() == null) {
            throw new IllegalStateException("the drill never reached its stall");
        }
        stalled.get().join(); // a stall that could not be set up fails the drill
        return new Answers(new TreeMap<>(statuses), total);
    }

    private static void stall(String jdbcUrl, String table) {
        try {
            new BenchRepository(jdbcUrl).stall(table, STALL);
        } catch (Exception e) {
            throw new IllegalStateException("the drill could not stall PostgreSQL: " + e, e);
        }
    }
}
