package io.seckill.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The bench's own reads and writes of PostgreSQL, on connections of its own (never the
 * application's pool): the WAL counters, statement times, the minimal batch's database, the drill's
 * stall and the facts it reads afterwards.
 */
final class BenchRepository {

    /** One row of {@code pg_stat_statements}. */
    record StatementTime(long calls, double totalMillis, long walRecords, long walBytes, String query) {}

    private final String jdbcUrl;

    BenchRepository(String jdbcUrl) {
        this.jdbcUrl = jdbcUrl;
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
    }

    /** {records, full-page images, bytes, fsyncs} of {@code pg_stat_wal}. */
    long[] wal() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT wal_records, wal_fpi, wal_bytes, wal_sync FROM pg_stat_wal")) {
            r.next();
            return new long[] {r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4)};
        }
    }

    void resetStatementTimes() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            s.execute("SELECT pg_stat_statements_reset()");
        }
    }

    List<StatementTime> statementTimes(int limit) throws SQLException {
        List<StatementTime> out = new ArrayList<>();
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement("""
                SELECT calls, total_exec_time, wal_records, wal_bytes, left(regexp_replace(query, '\\s+', ' ', 'g'), 110)
                FROM pg_stat_statements
                UNION ALL
                SELECT sum(calls), sum(total_exec_time), sum(wal_records), sum(wal_bytes), 'all statements' FROM pg_stat_statements
                ORDER BY 2 DESC LIMIT ?""")) {
            s.setInt(1, limit);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(new StatementTime(
                            r.getLong(1), r.getDouble(2), r.getLong(3), r.getLong(4), r.getString(5)));
                }
            }
        }
        return out;
    }

    /** A fresh database {@code name} with {@code schema} run in it; returns its JDBC URL. */
    String freshDatabase(String name, String schema) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name);
            s.execute("CREATE DATABASE " + name);
        }
        String url = jdbcUrl.replaceFirst("/postgres(\\?|$)", "/" + name + "$1");
        try (Connection c = DriverManager.getConnection(url, "postgres", "postgres");
                Statement s = c.createStatement()) {
            s.execute(schema);
        }
        return url;
    }

    /**
     * Before a measured run: what the runs before it left to do is done now, not inside it - dead rows
     * vacuumed and statistics taken (or autovacuum would do it during the run), dirty buffers written
     * out (or the next checkpoint would).
     */
    void settle() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("VACUUM (ANALYZE)");
            s.execute("CHECKPOINT");
        }
    }

    void dropDatabase(String name) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name);
        }
    }

    /**
     * The consumer runs' order events have no reader (their reservations were never in Redis): marked
     * sent, so a later run with the outbox relay and the projection starts from an empty outbox.
     * Returns how many.
     */
    int retireUnsentEvents() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            return s.executeUpdate(
                    "UPDATE event_outbox SET status = 'SENT', sent_at = clock_timestamp(), lease_owner = NULL, "
                            + "lease_until = NULL WHERE status IN ('PENDING', 'RETRY', 'SENDING')");
        }
    }

    /** Holds an exclusive lock on {@code table} for {@code how long}: PostgreSQL stalled, for that table's writers. */
    void stall(String table, Duration howLong) throws SQLException, InterruptedException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
            Thread.sleep(howLong.toMillis());
            c.commit();
        }
    }

    /**
     * For every order of the sale reserved from {@code since} on: microseconds from its reservation's
     * reserved_at (QUEUED) to its created_at.
     */
    void queuedToOrderMicros(long activityId, java.time.Instant since, LongConsumer each) throws SQLException {
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement("""
                SELECT (extract(epoch FROM o.created_at - r.reserved_at) * 1000000)::bigint
                FROM orders o JOIN inventory_reservation r ON r.reservation_id = o.reservation_id
                WHERE o.activity_id = ? AND r.reserved_at >= ?""")) {
            s.setLong(1, activityId);
            s.setTimestamp(2, java.sql.Timestamp.from(since));
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    each.accept(r.getLong(1));
                }
            }
        }
    }

    /** QUEUED -> ORDER_CREATED by 10 s of the run (by reserved_at): "+Ns: count, p50, p99" per window. */
    List<String> queuedToOrderByWindow(long activityId, java.time.Instant since) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement("""
                WITH l AS (SELECT r.reserved_at, extract(epoch FROM o.created_at - r.reserved_at) AS s
                           FROM orders o JOIN inventory_reservation r ON r.reservation_id = o.reservation_id
                           WHERE o.activity_id = ? AND r.reserved_at >= ?)
                SELECT floor(extract(epoch FROM reserved_at - (SELECT min(reserved_at) FROM l)) / 10)::int * 10, count(*),
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY s), percentile_cont(0.99) WITHIN GROUP (ORDER BY s)
                FROM l GROUP BY 1 ORDER BY 1""")) {
            s.setLong(1, activityId);
            s.setTimestamp(2, java.sql.Timestamp.from(since));
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(String.format(
                            "+%ds: %,d orders, p50 %.3f s, p99 %.3f s",
                            r.getInt(1), r.getLong(2), r.getDouble(3), r.getDouble(4)));
                }
            }
        }
        return out;
    }

    /** {orders, buyers with more than one order} of a sale in {@code table} (the engine's or the naive baseline's). */
    long[] orderFacts(String table, long activityId) throws SQLException {
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement("SELECT (SELECT count(*) FROM " + table
                        + " WHERE activity_id = ?), (SELECT count(*) FROM (SELECT 1 FROM " + table
                        + " WHERE activity_id = ? "
                        + "GROUP BY user_id HAVING count(*) > 1) d)")) {
            s.setLong(1, activityId);
            s.setLong(2, activityId);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return new long[] {r.getLong(1), r.getLong(2)};
            }
        }
    }
}
