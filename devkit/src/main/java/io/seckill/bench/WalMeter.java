package io.seckill.bench;

import java.nio.file.Path;

/**
 * What one order costs PostgreSQL, for runs that follow each other: the write-ahead log as
 * {@code pg_stat_wal} counts it (cluster-wide: bytes, records, full-page images, fsyncs) and the
 * server's CPU time (postmaster and backends, from /proc).
 */
final class WalMeter {

    /** One reading of {@code pg_stat_wal}. */
    record Reading(long records, long fullPages, long bytes, long syncs, long cpuNanos) {

        Cost since(Reading before, long orders) {
            double n = Math.max(1, orders);
            double cpu = cpuNanos < 0 || before.cpuNanos < 0 ? Double.NaN : (cpuNanos - before.cpuNanos) / 1000.0 / n;
            return new Cost(
                    (bytes - before.bytes) / n,
                    (records - before.records) / n,
                    (fullPages - before.fullPages) / n,
                    (syncs - before.syncs) * 1000 / n,
                    cpu);
        }
    }

    /** Per order between two readings. */
    record Cost(double bytes, double records, double fullPages, double syncsPer1000, double cpuMicros) {

        @Override
        public String toString() {
            return String.format(
                    "PostgreSQL CPU %.0f us, WAL %,.0f bytes, %.1f records, %.2f full-page images per order; "
                            + "%.1f fsyncs per 1,000 orders",
                    cpuMicros, bytes, records, fullPages, syncsPer1000);
        }
    }

    private final BenchRepository db;
    private final Path dataDirectory;

    WalMeter(String jdbcUrl, Path dataDirectory) {
        this.db = new BenchRepository(jdbcUrl);
        this.dataDirectory = dataDirectory;
    }

    Reading read() throws Exception {
        long[] w = db.wal();
        return new Reading(w[0], w[1], w[2], w[3], CpuMeter.postgresNanos(dataDirectory));
    }
}
