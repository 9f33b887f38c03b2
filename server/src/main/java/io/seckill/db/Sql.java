package io.seckill.db;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;

/** Small conversions every repository needs when it binds parameters or reads rows. */
public final class Sql {

    private Sql() {}

    /** A duration as a PostgreSQL interval literal, bound as {@code ?::interval}. */
    public static String interval(Duration d) {
        return d.toMillis() + " milliseconds";
    }

    /** Ids bound as {@code ?::uuid[]}. */
    public static String[] uuids(Collection<UUID> ids) {
        return ids.stream().map(UUID::toString).toArray(String[]::new);
    }

    public static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }

    /** A {@code count(*)} read with queryForObject (never null in practice). */
    public static long count(Long n) {
        return n == null ? 0 : n;
    }

    /** The rows of a {@code SELECT key, count(*) ... GROUP BY key}, sorted by key. */
    public static Map<String, Long> countsByKey(JdbcTemplate jdbc, String sql, Object... args) {
        Map<String, Long> out = new TreeMap<>();
        jdbc.query(
                sql,
                rs -> {
                    out.put(rs.getString(1), rs.getLong(2));
                },
                args);
        return out;
    }

    /** The lease a claim takes, on the database clock: binds the owner token and the lease length. */
    public static final String LEASE = "lease_owner = ?, lease_until = clock_timestamp() + ?::interval";

    /**
     * The batch claim (DESIGN.md §9.7) of any queue table: up to {@code LIMIT ?} rows matching
     * {@code due}, oldest first by {@code orderBy}, skipping rows other workers hold locked, updated
     * by {@code set} in the same statement - and only while {@code recheck} still holds of the row
     * (empty for none). The caller appends {@code RETURNING}; the table is aliased {@code alias}. The
     * claimed rows are updated by their keys as one array, so each is found through the primary key:
     * joined to the claim instead, a recheck that repeats an index's predicate was planned as a scan of
     * that whole index (every open order, at each deadline sweep).
     */
    public static String claimBatch(
            String table, String alias, String key, String due, String orderBy, String set, String recheck) {
        return """
                WITH due AS (
                    SELECT %2$s FROM %1$s
                    WHERE %4$s
                    ORDER BY %5$s
                    LIMIT ?
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE %1$s AS %3$s
                SET %6$s
                WHERE %3$s.%2$s = ANY (ARRAY(SELECT %2$s FROM due))%7$s
                """.formatted(table, key, alias, due, orderBy, set, recheck.isEmpty() ? "" : " AND " + recheck);
    }

    /**
     * A retried queue's rows that may be claimed now: waiting ({@code PENDING}, {@code RETRY}) or
     * held under a lease that expired, and due. Its first condition is, word for word, the predicate
     * of the queue's partial dispatch index on {@code (next_retry_at, created_at)}, and "due" is
     * {@link #DUE} on {@code next_retry_at}: PostgreSQL walks that index in order from the oldest row
     * to the first one not yet due, and stops at the claim's limit. Written as one {@code OR} of the
     * waiting and the expired rows, it matched the index only through two bitmap scans, and once the
     * table was analyzed a sequential scan: every claim read the whole queue, or the whole table with
     * its retained sent rows, and sorted it - a claim that grew slower the further behind it fell.
     */
    public static String claimable(String claimedStatus) {
        return "status IN ('PENDING', 'RETRY', '" + claimedStatus + "') AND (status <> '" + claimedStatus
                + "' OR lease_until < clock_timestamp()) AND next_retry_at " + DUE;
    }

    /**
     * "Due now" for the column an index is ordered by: {@code <= now()}, the statement's start when it
     * runs on its own (as every claim does). {@code clock_timestamp()} is volatile, so a bound on it
     * cannot end an index scan: with nothing due - a queue in backoff through a broker outage, open
     * orders none of which has expired - each pass read every row of the index to find none.
     */
    public static final String DUE = "<= now()";
}
