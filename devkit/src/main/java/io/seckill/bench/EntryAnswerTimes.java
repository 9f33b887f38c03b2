package io.seckill.bench;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.springframework.context.ApplicationContext;

/**
 * The admission entry's own time for its accepted answers over one wrk run, from its histogram
 * {@code admission_entry_requests_seconds{status="202"}}: from the request read whole to its answer
 * handed to the connection (the wait for an answering thread, the token, Redis, the send's hand-off).
 * wrk's latency holds that and what lies outside it: the kernel, the event loop's turn, the answer's
 * way back, wrk's own wait for a core. The two side by side say which side the tail is on.
 */
final class EntryAnswerTimes {

    private static final String TIMER = "admission.entry.requests";

    private final MeterRegistry meters;
    private final Snapshot before;

    /** The histogram's counts at one moment: bucket upper bounds (ns) and the answers at or below each. */
    record Snapshot(long count, long[] boundsNanos, long[] cumulative) {
        static final Snapshot EMPTY = new Snapshot(0, new long[0], new long[0]);
    }

    EntryAnswerTimes(ApplicationContext app) {
        this.meters = app.getBean(MeterRegistry.class);
        this.before = snapshot();
    }

    /** The answers since this watch began: p50 and p99 as the bucket bounds they fall under, or why not measured. */
    String sinceStart() {
        Snapshot after = snapshot();
        long answers = after.count() - before.count();
        if (answers <= 0) {
            return "in the entry: no accepted answers recorded";
        }
        double[] bounds = quantileBounds(before, after, 0.50, 0.99);
        if (bounds == null) {
            return "in the entry: not measured (its histogram does not account for every answer of the run)";
        }
        return String.format(
                "in the entry (request read to answer handed on): p50 <= %.1f ms, p99 <= %.1f ms",
                bounds[0], bounds[1]);
    }

    private Snapshot snapshot() {
        var timers = meters.find(TIMER).tag("status", "202").timers();
        if (timers.isEmpty()) {
            return Snapshot.EMPTY;
        }
        long count = 0;
        long[] bounds = null;
        long[] cumulative = null;
        for (Timer t : timers) {
            HistogramSnapshot s = t.takeSnapshot();
            CountAtBucket[] buckets = s.histogramCounts();
            if (bounds == null) {
                bounds = new long[buckets.length];
                cumulative = new long[buckets.length];
                for (int i = 0; i < buckets.length; i++) {
                    bounds[i] = (long) buckets[i].bucket(TimeUnit.NANOSECONDS);
                }
            }
            if (buckets.length != bounds.length) {
                return Snapshot.EMPTY;
            }
            for (int i = 0; i < buckets.length; i++) {
                cumulative[i] += (long) buckets[i].count();
            }
            count += s.count();
        }
        return new Snapshot(count, bounds, cumulative);
    }

    /**
     * For each quantile, the upper bound (ms) of the first bucket at or below which that share of the
     * answers between {@code before} and {@code after} fell; null when the buckets differ or the highest
     * bucket does not hold every answer of the interval counted by {@code count} (a histogram that forgets
     * old values as it goes could not be subtracted).
     */
    static double[] quantileBounds(Snapshot before, Snapshot after, double... quantiles) {
        long total = after.count() - before.count();
        long[] bounds = after.boundsNanos();
        if (total <= 0 || bounds.length == 0) {
            return null;
        }
        // no buckets before: nothing had been recorded yet
        long[] base = before.boundsNanos().length == 0 ? new long[bounds.length] : before.cumulative();
        if (before.boundsNanos().length != 0 && !Arrays.equals(before.boundsNanos(), bounds)) {
            return null;
        }
        long[] delta = new long[bounds.length];
        for (int i = 0; i < bounds.length; i++) {
            delta[i] = after.cumulative()[i] - base[i];
        }
        if (delta[bounds.length - 1] != total) {
            return null;
        }
        double[] out = new double[quantiles.length];
        for (int q = 0; q < quantiles.length; q++) {
            long rank = (long) Math.ceil(quantiles[q] * total);
            int i = 0;
            while (delta[i] < rank) {
                i++;
            }
            out[q] = bounds[i] / 1e6;
        }
        return out;
    }
}
