package io.seckill.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The summary's goal lines: the ratio against the same run's costs, and met or not met at the goal's edge. */
class BenchSummaryTest {

    @Test
    @DisplayName("the pipeline's machine CPU per admitted reservation against EVALSHA + the minimal order: met at 8x, "
            + "not above; not measured without both costs")
    void pipelineCost() {
        assertThat(BenchCommand.pipelineCost(689, 42.7, 18.0))
                .contains("= 11.4x")
                .endsWith("(goal <= 8x: not met)");
        assertThat(BenchCommand.pipelineCost(480, 42.0, 18.0))
                .contains("= 8.0x")
                .endsWith("(goal <= 8x: met)");
        assertThat(BenchCommand.pipelineCost(481, 42.0, 18.0)).endsWith("(goal <= 8x: not met)");
        assertThat(BenchCommand.pipelineCost(689, Double.NaN, 18.0)).contains("not measured");
    }

    @Test
    @DisplayName("bench --url: the sale's answers per second by status beside the floor; the refusals' ratio only "
            + "once the sale answered 409")
    void remoteSummary() {
        ExternalLoad.WrkResult floor = result(Map.of(404, 400_000L), 10);
        ExternalLoad.WrkResult soldOut = result(Map.of(202, 1_000L, 409, 320_000L), 10);
        assertThat(BenchCommand.remoteSummary(floor, soldOut, 10))
                .anySatisfy(l -> assertThat(l).contains("40,000 answers/s"))
                .anySatisfy(l -> assertThat(l).contains("by status: 202 100/s, 409 32,000/s"))
                .anySatisfy(l ->
                        assertThat(l).contains("refusals (409) / floor = 0.80x   (goal >= 0.8x once sold out: met)"));
        ExternalLoad.WrkResult selling = result(Map.of(202, 50_000L), 10);
        assertThat(BenchCommand.remoteSummary(floor, selling, 10))
                .anySatisfy(l -> assertThat(l).contains("the sale did not sell out"))
                .noneSatisfy(l -> assertThat(l).contains("refusals (409) / floor"));
    }

    private static ExternalLoad.WrkResult result(Map<Integer, Long> statuses, int seconds) {
        long answers = statuses.values().stream().mapToLong(Long::longValue).sum();
        Histogram latency = new Histogram(3);
        latency.recordValue(1_000);
        return new ExternalLoad.WrkResult(
                answers / (double) seconds,
                statuses.getOrDefault(202, 0L) / (double) seconds,
                new java.util.TreeMap<>(statuses),
                1.0,
                2.0,
                latency);
    }
}
