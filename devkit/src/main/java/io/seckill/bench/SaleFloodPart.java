package io.seckill.bench;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.ActivityService;
import io.seckill.engines.EmbeddedEngines;
import io.seckill.entry.AdmissionEntry;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.context.ConfigurableApplicationContext;

/** The bench's sale part: a sale's shape at the admission entry, refusals beside the entry's floor. */
final class SaleFloodPart {

    private final BenchCommand bench;

    private final int concurrency;

    private final int seconds;

    private final int warmup;

    private final int saleUnits;

    SaleFloodPart(BenchCommand bench) {
        this.bench = bench;
        this.concurrency = bench.concurrency;
        this.seconds = bench.seconds;
        this.warmup = bench.warmup;
        this.saleUnits = bench.saleUnits;
    }

    /**
     * A sale's shape at the admission entry: {@link #saleUnits} units over 1 and then 4 buckets, a flood of distinct
     * buyers for {@link #seconds} - nearly all of them answered SOLD_OUT, most from the instance's memory - beside
     * the entry's floor, the same load answered from memory after the same token check (a sale that does not
     * exist: the catalogue answers 404 without a query). Each run starts from an empty Redis. Returns the summary's
     * lines; {@code admittedPerSecond} is the admission part's entry rate (NaN when it did not run).
     */
    List<String> saleFlood(EmbeddedEngines engines, double admittedPerSecond) throws Exception {
        Optional<Path> wrk = ExternalLoad.tool("wrk");
        if (wrk.isEmpty()) {
            return List.of("sale flood: not measured (wrk is missing: apt-get install wrk)");
        }
        Map<String, Object> p = bench.webProperties(engines);
        p.put("seckill.roles", "api,send-due-scanner");
        p.put("seckill.admission.entry-port", "0");
        p.put("seckill.admission.max-order-backlog-age", "0s");
        List<String> lines = new ArrayList<>();
        try (ConfigurableApplicationContext app = bench.run(p)) {
            int entryPort = app.getBean(AdmissionEntry.class).port();
            Path floorTokens = bench.freshBuyers(seconds, engines.home());
            String unknown = "http://127.0.0.1:" + entryPort + "/api/v1/activities/999999999/skus/1/reservations";
            ExternalLoad.wrk(wrk.get(), unknown, floorTokens, concurrency, warmup, engines.home());
            Observation.Observed floor = Observation.observe(
                    app,
                    true,
                    () -> ExternalLoad.wrk(wrk.get(), unknown, floorTokens, concurrency, seconds, engines.home()));
            double floorRate = floor.wrk().requestsPerSecond();
            double floorCpu =
                    floor.cpuNanos() / 1000.0 / Math.max(1, floor.wrk().answers());
            System.out.printf(
                    "[sale] floor (an unknown sale, from memory after the token check): %,.0f answers/s, statuses %s, "
                            + "%.0f us of application CPU per answer%n",
                    floorRate, floor.wrk().statuses(), floorCpu);
            lines.add(String.format(
                    "sale flood at the admission entry, %d clients, %,d units, %d s each:",
                    concurrency, saleUnits, seconds));
            lines.add(String.format(
                    "  floor: an unknown sale answered 404 from memory: %,10.0f answers/s, %.0f us CPU per answer",
                    floorRate, floorCpu));
            ActivityService activities = app.getBean(ActivityService.class);
            for (int buckets : new int[] {1, 4}) {
                BenchCommand.emptyRedis(engines, "sale");
                long activity = 700_200 + buckets;
                BenchCommand.openSale(
                        activities, activity, "bench sale " + buckets, BigDecimal.ONE, saleUnits, buckets);
                String url =
                        "http://127.0.0.1:" + entryPort + "/api/v1/activities/" + activity + "/skus/1/reservations";
                Path tokens = bench.freshBuyers(seconds, engines.home());
                MeterRegistry meters = app.getBean(MeterRegistry.class);
                double memoBefore =
                        meters.counter("reservation.sold_out_from_memory").count();
                double unconfirmedBefore =
                        meters.counter("reservation.sold_out_memo.unconfirmed").count();
                Observation.Observed run = Observation.observe(
                        app,
                        true,
                        () -> ExternalLoad.wrk(wrk.get(), url, tokens, concurrency, seconds, engines.home()));
                ExternalLoad.WrkResult r = run.wrk();
                long admitted = r.statuses().getOrDefault(202, 0L);
                long soldOut = r.statuses().getOrDefault(409, 0L);
                double refusals = soldOut / (double) seconds;
                double cpu = run.cpuNanos() / 1000.0 / Math.max(1, r.answers());
                bench.latencies.add("sale flood, " + buckets + " bucket(s), " + seconds + " s", r.latency());
                System.out.printf(
                        "[sale] %d bucket(s): statuses %s, %,.0f answers/s, p50 %.1f ms p99 %.1f ms, %.0f us of "
                                + "application CPU per answer; %s%n",
                        buckets, r.statuses(), r.requestsPerSecond(), r.p50Millis(), r.p99Millis(), cpu, run.redis());
                lines.add(String.format(
                        "  %d bucket(s): %,d admitted (of %,d units), %,10.0f SOLD_OUT/s, %.0f us CPU per answer, p99 %.1f ms",
                        buckets, admitted, saleUnits, refusals, cpu, r.p99Millis()));
                lines.add(String.format(
                        "    refusals / floor = %.2fx   (goal >= 0.8x: %s)",
                        refusals / floorRate, BenchCommand.met(refusals / floorRate >= 0.8)));
                if (!Double.isNaN(admittedPerSecond)) {
                    lines.add(String.format(
                            "    refusals / the entry's admissions = %.2fx   (goal >= 3x: %s)",
                            refusals / admittedPerSecond, BenchCommand.met(refusals / admittedPerSecond >= 3)));
                }
                lines.add(String.format(
                        "    answered from memory: %,.0f; asked of Redis with the memory unconfirmed (a late poll): %,.0f",
                        meters.counter("reservation.sold_out_from_memory").count() - memoBefore,
                        meters.counter("reservation.sold_out_memo.unconfirmed").count() - unconfirmedBefore));
                if (admitted != saleUnits) {
                    lines.add(String.format(
                            "    admitted %,d, not the %,d units: the run did not sell out (or oversold)",
                            admitted, saleUnits));
                }
            }
        }
        return lines;
    }
}
