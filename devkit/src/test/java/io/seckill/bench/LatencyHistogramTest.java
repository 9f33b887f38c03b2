package io.seckill.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** wrk's printed distribution becomes an HdrHistogram, and histograms become .hgrm files and a chart. */
class LatencyHistogramTest {

    @Test
    @DisplayName("each printed percentile step carries its share of the requests at its value")
    void wrkPercentilesBecomeAHistogram() {
        StringBuilder out = new StringBuilder("Requests/sec: 100.0\n");
        // 1,000 requests: 1 ms up to the median, 10 ms up to the 99th, 100 ms above
        for (int i = 1; i <= 1000; i++) {
            double pct = i / 10.0;
            long us = pct <= 50 ? 1_000 : pct <= 99 ? 10_000 : 100_000;
            out.append(String.format("pct %.3f %d%n", pct, us));
        }
        Histogram h = ExternalLoad.latency(out.toString(), 1000);
        assertThat(h.getTotalCount()).isEqualTo(1000);
        assertThat(h.getValueAtPercentile(50) / 1000.0).isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.01));
        assertThat(h.getValueAtPercentile(90) / 1000.0).isCloseTo(10.0, org.assertj.core.data.Offset.offset(0.01));
        assertThat(h.getMaxValue() / 1000.0).isCloseTo(100.0, org.assertj.core.data.Offset.offset(0.1));
        assertThat(h.getCountBetweenValues(90_000, 110_000)).isEqualTo(10);
    }

    @Test
    @DisplayName("no printed distribution gives an empty histogram, which draws nothing")
    void noDistribution() {
        assertThat(ExternalLoad.latency("Requests/sec: 1.0\n", 10).getTotalCount())
                .isZero();
        LatencyCharts charts = new LatencyCharts();
        charts.add("empty", new Histogram(3));
        assertThat(charts.isEmpty()).isTrue();
    }

    @Test
    @DisplayName("every series is written as a percentile distribution in ms, and all of them as one PNG")
    void chartsAndData(@TempDir Path dir) throws Exception {
        Histogram a = new Histogram(3);
        Histogram b = new Histogram(3);
        for (int i = 1; i <= 1000; i++) {
            a.recordValue(i * 100L);
            b.recordValue(i * 300L);
        }
        LatencyCharts charts = new LatencyCharts();
        charts.add("engine, 40 s", a);
        charts.add("naive baseline", b);
        List<Path> files = charts.write(dir, "latency", "test chart");
        assertThat(files)
                .extracting(f -> f.getFileName().toString())
                .containsExactly("latency-engine-40-s.hgrm", "latency-naive-baseline.hgrm", "latency.png");
        String hgrm = Files.readString(dir.resolve("latency-engine-40-s.hgrm"));
        assertThat(hgrm)
                .startsWith("# test chart: engine, 40 s (values in ms)")
                .contains("Percentile")
                .containsPattern("Total count += +1000]");
        byte[] png = Files.readAllBytes(dir.resolve("latency.png"));
        assertThat(png).startsWith(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
        assertThat(javax.imageio.ImageIO.read(dir.resolve("latency.png").toFile())
                        .getWidth())
                .isEqualTo(900);
        assertThat(LatencyCharts.niceCeiling(7.3)).isEqualTo(10.0);
        assertThat(LatencyCharts.niceCeiling(120)).isEqualTo(200.0);
    }
}
