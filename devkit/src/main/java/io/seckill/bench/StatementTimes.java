package io.seckill.bench;

/**
 * Where the order transaction's database time goes, statement by statement, when the embedded
 * PostgreSQL runs with {@code pg_stat_statements} (environment {@code SECKILL_PG_STAT_STATEMENTS=1});
 * silent otherwise.
 */
final class StatementTimes {

    private StatementTimes() {}

    static void reset(String jdbcUrl) throws Exception {
        if (enabled()) {
            new BenchRepository(jdbcUrl).resetStatementTimes();
        }
    }

    /** The statements by total execution time, all of them together first, as microseconds per order. */
    static void print(String jdbcUrl, long orders) throws Exception {
        if (!enabled()) {
            return;
        }
        System.out.println("  statement times per order (pg_stat_statements):");
        for (BenchRepository.StatementTime t : new BenchRepository(jdbcUrl).statementTimes(16)) {
            System.out.printf(
                    "  %8.1f us %6.1f WAL records %7.0f WAL bytes %8d calls  %s%n",
                    t.totalMillis() * 1000 / orders,
                    (double) t.walRecords() / orders,
                    (double) t.walBytes() / orders,
                    t.calls(),
                    t.query());
        }
    }

    private static boolean enabled() {
        return System.getenv("SECKILL_PG_STAT_STATEMENTS") != null;
    }
}
