package io.seckill.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Where the order transaction's database time goes, statement by statement, when the embedded
 * PostgreSQL runs with {@code pg_stat_statements} (environment {@code SECKILL_PG_STAT_STATEMENTS=1});
 * silent otherwise.
 */
final class StatementTimes {

    private StatementTimes() {
    }

    static void reset(String jdbcUrl) throws SQLException {
        if (enabled()) {
            try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "postgres"); Statement s = c.createStatement()) {
                s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
                s.execute("SELECT pg_stat_statements_reset()");
            }
        }
    }

    /** The statements by total execution time, as microseconds per order. */
    static void print(String jdbcUrl, long orders) throws SQLException {
        if (!enabled()) {
            return;
        }
        try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "postgres"); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("""
                        SELECT calls, total_exec_time, wal_records, left(regexp_replace(query, '\\s+', ' ', 'g'), 110)
                        FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 16""")) {
            System.out.println("  statement times per order (pg_stat_statements):");
            while (r.next()) {
                System.out.printf("  %8.1f us %6.1f WAL records %8d calls  %s%n", r.getDouble(2) * 1000 / orders,
                        r.getDouble(3) / orders, r.getLong(1), r.getString(4));
            }
        }
    }

    private static boolean enabled() {
        return System.getenv("SECKILL_PG_STAT_STATEMENTS") != null;
    }
}
