package io.seckill.outbox;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code event_outbox} (design 9.4-9.5, 10.4): rows are written inside business
 * transactions, claimed in one short statement with FOR UPDATE SKIP LOCKED and a lease on the
 * database clock, and settled only where the lease owner still matches.
 */
@Repository
public class OutboxRepository {

    private static final String INSERT = """
            INSERT INTO event_outbox (event_id, aggregate_type, aggregate_id, event_type, schema_version, message_key, payload)
            SELECT e, ?, a, ?, 1, a::text, p::jsonb
            FROM unnest(?::uuid[], ?::uuid[], ?::text[]) AS t(e, a, p)
            ON CONFLICT (event_id) DO NOTHING
            """;
    private static final String CLAIM_DUE = """
            WITH candidates AS (
                SELECT event_id
                FROM event_outbox
                WHERE (status IN ('PENDING', 'RETRY') OR (status = 'SENDING' AND lease_until < clock_timestamp()))
                  AND next_retry_at <= clock_timestamp()
                ORDER BY next_retry_at, created_at
                FOR UPDATE SKIP LOCKED
                LIMIT ?
            )
            UPDATE event_outbox AS o
            SET status = 'SENDING', lease_owner = ?, lease_until = clock_timestamp() + ?::interval,
                attempt_count = o.attempt_count + 1
            FROM candidates AS c
            WHERE o.event_id = c.event_id
            RETURNING o.event_id, o.aggregate_type, o.aggregate_id, o.event_type, o.payload::text, o.attempt_count
            """;
    private static final String MARK_SENT = """
            UPDATE event_outbox
            SET status = 'SENT', sent_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL, last_error = NULL
            WHERE event_id = ANY (?::uuid[]) AND status = 'SENDING' AND lease_owner = ?
            """;
    /**
     * Failure or unknown outcome: back off exponentially up to a cap and try again for as long as it
     * lasts (a broker outage is transient); the row stays in the pending and oldest-age gauges.
     */
    private static final String MARK_RETRY = """
            UPDATE event_outbox
            SET status        = 'RETRY',
                next_retry_at = clock_timestamp() + least(?::interval * power(2, least(greatest(attempt_count - 1, 0), 16)), ?::interval),
                lease_owner   = NULL,
                lease_until   = NULL,
                last_error    = ?
            WHERE event_id = ? AND status = 'SENDING' AND lease_owner = ?
            """;
    private static final String PURGE = """
            DELETE FROM event_outbox
            WHERE event_id IN (SELECT event_id FROM event_outbox
                               WHERE status = 'SENT' AND sent_at < clock_timestamp() - ?::interval LIMIT ?)
            """;
    private static final String BACKLOG = """
            SELECT count(*), extract(epoch FROM clock_timestamp() - min(created_at))
            FROM event_outbox WHERE status IN ('PENDING', 'RETRY', 'SENDING')
            """;

    private final JdbcTemplate jdbc;

    OutboxRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public record Claimed(UUID eventId, String aggregateType, UUID aggregateId, String eventType, String payload, int attempt) {
    }

    public record Backlog(long pending, double oldestAgeSeconds) {
    }

    /** Inside the business transaction: events of one type. */
    public void insert(String aggregateType, String eventType, List<OutboxEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        int n = events.size();
        String[] e = new String[n], a = new String[n], p = new String[n];
        for (int i = 0; i < n; i++) {
            OutboxEvent ev = events.get(i);
            e[i] = ev.eventId().toString();
            a[i] = ev.aggregateId().toString();
            p[i] = ev.payloadJson();
        }
        jdbc.update(INSERT, aggregateType, eventType, e, a, p);
    }

    public List<Claimed> claimDue(int limit, String owner, Duration lease) {
        return jdbc.query(CLAIM_DUE, (rs, i) -> new Claimed(rs.getObject(1, UUID.class), rs.getString(2),
                rs.getObject(3, UUID.class), rs.getString(4), rs.getString(5), rs.getInt(6)),
                limit, owner, interval(lease));
    }

    /** @return how many rows this owner settled (rows whose lease was lost are not touched) */
    public int markSent(List<UUID> eventIds, String owner) {
        return jdbc.update(MARK_SENT, eventIds.stream().map(UUID::toString).toArray(String[]::new), owner);
    }

    public boolean markRetry(UUID eventId, String owner, Duration base, Duration max, String error) {
        return jdbc.update(MARK_RETRY, interval(base), interval(max), truncate(error), eventId, owner) == 1;
    }

    public int purgeSent(Duration retention, int limit) {
        return jdbc.update(PURGE, interval(retention), limit);
    }

    public Backlog backlog() {
        return jdbc.queryForObject(BACKLOG, (rs, i) -> new Backlog(rs.getLong(1), rs.getDouble(2)));
    }

    static String interval(Duration d) {
        return d.toMillis() + " milliseconds";
    }

    private static String truncate(String s) {
        return s == null ? null : s.length() > 1000 ? s.substring(0, 1000) : s;
    }
}
