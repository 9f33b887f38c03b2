package io.seckill.demo;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The sale as a person watches it: phase, requests per second, what became of the reservations and
 * orders, and the pipeline's lag - one line rewritten in place on a terminal, a line every five
 * seconds otherwise (a log or CI).
 */
final class Progress implements AutoCloseable {

    private static final int LINE_EVERY_TICKS_WITHOUT_TERMINAL = 5;

    private final PrintStream out;
    private final boolean terminal;
    private final LongSupplier requests;
    private final LongSupplier queued;
    private final LongSupplier decided;
    private final Supplier<Map<String, Long>> orders;
    private final MeterRegistry meters;
    private final long startNanos = System.nanoTime();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "demo-progress");
        t.setDaemon(true);
        return t;
    });
    private volatile String phase = "starting";
    private long lastRequests;
    private long ticks;
    private int width;

    Progress(
            PrintStream out,
            boolean terminal,
            LongSupplier requests,
            LongSupplier queued,
            LongSupplier decided,
            Supplier<Map<String, Long>> orders,
            MeterRegistry meters) {
        this.out = out;
        this.terminal = terminal;
        this.requests = requests;
        this.queued = queued;
        this.decided = decided;
        this.orders = orders;
        this.meters = meters;
        timer.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.SECONDS);
    }

    void phase(String phase) {
        this.phase = phase;
    }

    /** One reading, as the console shows it. */
    String line(double requestsPerSecond) {
        Map<String, Long> o = orders.get();
        long all = o.values().stream().mapToLong(Long::longValue).sum();
        long q = queued.getAsLong();
        return String.format(
                "[%4ds] %-9s %6.0f req/s | queued %d | orders %d, paid %d, cancelled %d | "
                        + "lag: unsent %.0f (oldest %.1f s), not yet in PostgreSQL %d, outbox %.0f",
                (System.nanoTime() - startNanos) / 1_000_000_000L,
                phase,
                requestsPerSecond,
                q,
                all,
                o.getOrDefault("PAID", 0L),
                o.getOrDefault("CANCELLED", 0L),
                gauge("reservation.send.pending"),
                gauge("reservation.send.oldest.age.seconds"),
                Math.max(0, q - decided.getAsLong()),
                gauge("outbox.pending"));
    }

    private synchronized void tick() {
        try {
            long now = requests.getAsLong();
            String line = line(now - lastRequests);
            lastRequests = now;
            ticks++;
            if (terminal) {
                out.print("\r" + line + " ".repeat(Math.max(0, width - line.length())));
                width = line.length();
                out.flush();
            } else if (ticks % LINE_EVERY_TICKS_WITHOUT_TERMINAL == 0) {
                out.println(line);
            }
        } catch (RuntimeException e) {
            // a reading that failed (the database busy) is skipped; the next second tries again
            String note = "[progress unavailable this second: " + e.getClass().getSimpleName() + "]";
            if (terminal) {
                out.print("\r" + note);
            } else {
                out.println(note);
            }
        }
    }

    private double gauge(String name) {
        Gauge g = meters.find(name).gauge();
        return g == null ? 0 : g.value();
    }

    @Override
    public synchronized void close() {
        timer.shutdownNow();
        if (terminal && ticks > 0) {
            out.println();
        }
    }
}
