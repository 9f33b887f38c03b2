package io.seckill.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class EntryAnswerTimesTest {

    private static final long MS = 1_000_000;

    @Test
    @DisplayName("p50 and p99 of the answers between two snapshots are the bounds of the buckets they fall in; the "
            + "answers before the first snapshot do not count")
    void quantilesOfTheInterval() {
        long[] bounds = {1 * MS, 2 * MS, 5 * MS, 10 * MS, 50 * MS};
        EntryAnswerTimes.Snapshot before = new EntryAnswerTimes.Snapshot(1_000, bounds, new long[] {0, 0, 0, 0, 1_000});
        // 100 answers in the interval: 60 under 1 ms, 38 more under 2 ms, 1 under 10 ms, 1 under 50 ms
        EntryAnswerTimes.Snapshot after =
                new EntryAnswerTimes.Snapshot(1_100, bounds, new long[] {60, 98, 98, 99, 1_100});
        assertThat(EntryAnswerTimes.quantileBounds(before, after, 0.5, 0.98, 0.99, 1.0))
                .containsExactly(1.0, 2.0, 10.0, 50.0);
    }

    @Test
    @DisplayName(
            "a histogram whose buckets do not hold every answer counted, or whose buckets changed, is not measured")
    void notMeasuredWhenTheCountsDisagree() {
        long[] bounds = {1 * MS, 2 * MS};
        EntryAnswerTimes.Snapshot before = new EntryAnswerTimes.Snapshot(0, bounds, new long[] {0, 0});
        assertThat(EntryAnswerTimes.quantileBounds(
                        before, new EntryAnswerTimes.Snapshot(10, bounds, new long[] {5, 9}), 0.5))
                .isNull();
        assertThat(EntryAnswerTimes.quantileBounds(
                        before,
                        new EntryAnswerTimes.Snapshot(10, new long[] {1 * MS, 3 * MS}, new long[] {5, 10}),
                        0.5))
                .isNull();
        assertThat(EntryAnswerTimes.quantileBounds(before, before, 0.5)).isNull();
    }

    @Test
    @DisplayName(
            "the Prometheus registry's percentile histogram keeps every value (nothing ages out between snapshots), "
                    + "so two snapshots subtract")
    void prometheusHistogramIsCumulative() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Timer timer = Timer.builder("t")
                .publishPercentileHistogram()
                .serviceLevelObjectives(Duration.ofMillis(5))
                .register(meters);
        for (int i = 0; i < 99; i++) {
            timer.record(800, TimeUnit.MICROSECONDS);
        }
        timer.record(40, TimeUnit.MILLISECONDS);
        var s = timer.takeSnapshot();
        long[] bounds = new long[s.histogramCounts().length];
        long[] counts = new long[bounds.length];
        for (int i = 0; i < bounds.length; i++) {
            bounds[i] = (long) s.histogramCounts()[i].bucket(TimeUnit.NANOSECONDS);
            counts[i] = (long) s.histogramCounts()[i].count();
        }
        double[] q = EntryAnswerTimes.quantileBounds(
                EntryAnswerTimes.Snapshot.EMPTY,
                new EntryAnswerTimes.Snapshot(s.count(), bounds, counts),
                0.5,
                0.99,
                1.0);
        assertThat(q).isNotNull();
        assertThat(q[0]).isBetween(0.8, 1.0);
        assertThat(q[1]).isBetween(0.8, 1.0);
        assertThat(q[2]).isBetween(40.0, 50.0);
    }
}
