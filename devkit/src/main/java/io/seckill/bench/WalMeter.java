package io.seckill.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

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
            return new Cost((bytes - before.bytes) / n, (records - before.records) / n, (fullPages - before.fullPages) / n,
                    (syncs - before.syncs) * 1000 / n, cpu);
        }
    }

    /** Per order between two readings. */
    record Cost(double bytes, double records, double fullPages, double syncsPer1000, double cpuMicros) {

        @Override
        public String toString() {
            return String.format("PostgreSQL CPU %.0f us, WAL %,.0f bytes, %.1f records, %.2f full-page images per order; "
                    + "%.1f fsyncs per 1,000 orders", cpuMicros, bytes, records, fullPages, syncsPer1000);
        }
    }

    private final String jdbcUrl;
    private final Path dataDirectory;

    WalMeter(String jdbcUrl, Path dataDirectory) {
        this.jdbcUrl = jdbcUrl;
        this.dataDirectory = dataDirectory;
    }

    Reading read() throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT wal_records, wal_fpi, wal_bytes, wal_sync FROM pg_stat_wal")) {
            r.next();
            return new Reading(r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4), CpuMeter.postgresNanos(dataDirectory));
        }
    }
}
