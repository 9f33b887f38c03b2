package io.seckill.entry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code admission_entry_requests_seconds}: every answer of the admission entry, by status and code,
 * as a histogram with the API port's SLO buckets, so p99 is computable in PromQL the same way.
 */
final class EntryMetrics {

    private final MeterRegistry meters;
    private final ConcurrentHashMap<String, Timer> timers = new ConcurrentHashMap<>();
    private final Counter readPaused;

    EntryMetrics(MeterRegistry meters) {
        this.meters = meters;
        // registered at start: a panel or an alert on them sees zero series, not absent ones
        for (String type : new String[] {
            "client_io", "idle", "connection_limit", "address_limit", "first_byte_timeout", "request_timeout"
        }) {
            meters.counter("admission.entry.channel.failures", "type", type);
        }
        this.readPaused = meters.counter("admission.entry.read.paused");
    }

    /** {@code admission_entry_channel_failures_total{type}}: connections the entry closed on an error. */
    void channelFailed(String type) {
        meters.counter("admission.entry.channel.failures", "type", type).increment();
    }

    /**
     * {@code admission_entry_read_paused_total}: a connection stopped being read because it had
     * {@code seckill.admission.entry-limits.max-pipelined} calls unanswered.
     */
    void readPaused() {
        readPaused.increment();
    }

    void answered(int status, String code, long startNanos) {
        timers.computeIfAbsent(
                        status + " " + code,
                        k -> Timer.builder("admission.entry.requests")
                                .description("Answers of the admission entry (seckill.admission.entry-port)")
                                .tag("status", Integer.toString(status))
                                .tag("code", code)
                                .publishPercentileHistogram()
                                .serviceLevelObjectives(
                                        Duration.ofMillis(5),
                                        Duration.ofMillis(10),
                                        Duration.ofMillis(25),
                                        Duration.ofMillis(50),
                                        Duration.ofMillis(100),
                                        Duration.ofMillis(250),
                                        Duration.ofMillis(500),
                                        Duration.ofSeconds(1))
                                .register(meters))
                .record(System.nanoTime() - startNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }
}
