package io.seckill.outbox;

import static io.seckill.db.Sql.count;
import static io.seckill.db.Sql.interval;

import io.seckill.db.Backlog;
import io.seckill.db.Sql;
import io.seckill.retry.Backoff;
import io.seckill.trace.PipelineTrace;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code event_outbox} (DESIGN.md §9.4-9.5, 10.4): rows are written inside business
 * transactions, claimed in one short statement with FOR UPDATE SKIP LOCKED and a lease on the
 * database clock, and settled only where the lease owner still matches.
 */
@Repository
class OutboxRepository {

    private static final String INSERT = """
            INSERT INTO event_outbox (event_id, aggregate_type, aggregate_id, event_type, schema_version, message_key, payload,
                                      trace_parent)
            SELECT e, ?, a, ?, 1, a::text, p::jsonb, tp
            FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::text[]) AS t(e, a, p, tp)
            ON CONFLICT (event_id) DO NOTHING
            """;
    static final String CLAIM_DUE = Sql.claimBatch(
                    "event_outbox",
                    "o",
                    "event_id",
                    Sql.claimable("SENDING"),
                    "next_retry_at, created_at",
                    "status = 'SENDING', " + Sql.LEASE + ", attempt_count = o.attempt_count + 1",
                    "")
            + "RETURNING o.event_id, o.aggregate_type, o.aggregate_id, o.event_type, o.payload::text, o.attempt_count, "
            + "o.trace_parent";
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
                lease_owner   = NULL,
                lease_until   = NULL,
                last_error    = ?,
                next_retry_at = clock_timestamp() +
            """ + Backoff.SQL_DELAY.formatted("attempt_count") + """
            WHERE event_id = ? AND status = 'SENDING' AND lease_owner = ?
            """;
    /** A send the broker refuses for what the event is (not for how the broker is): no retry, a person decides. */
    private static final String MARK_MANUAL = """
            UPDATE event_outbox
            SET status = 'MANUAL', lease_owner = NULL, lease_until = NULL, last_error = ?
            WHERE event_id = ? AND status = 'SENDING' AND lease_owner = ?
            """;
    /**
     * Sent events past the retention, a batch at a time: found through the purge index by {@code sent_at},
     * then deleted by their keys. The cutoff is on {@code now()} (the statement's own start here): a
     * cutoff on the volatile {@code clock_timestamp()} cannot bound an index scan, and the relay read
     * every row of the table each second to find none past the retention.
     */
    static final String PURGE = """
            DELETE FROM event_outbox
            WHERE event_id = ANY (ARRAY(SELECT event_id FROM event_outbox
                                        WHERE status = 'SENT' AND sent_at < now() - ?::interval LIMIT ?))
            """;

    private static final String BACKLOG = """
            SELECT count(*), extract(epoch FROM clock_timestamp() - min(created_at))
            FROM event_outbox WHERE status IN ('PENDING', 'RETRY', 'SENDING')
            """;

    /** SENDING rows whose lease ran out longer than the watermark ago: a relay died holding them. */
    private static final String STALE = """
            SELECT event_id, attempt_count FROM event_outbox
            WHERE status = 'SENDING' AND lease_until < clock_timestamp() - ?::interval
            LIMIT 1000
            """;

    private static final String RECLAIM = """
            UPDATE event_outbox
            SET status = 'RETRY', lease_owner = NULL, lease_until = NULL, next_retry_at = clock_timestamp(),
                last_error = 'lease expired; re-claimed by reconciliation'
            WHERE event_id = ? AND status = 'SENDING' AND lease_until < clock_timestamp()
            """;
    /** Unsent events of one SKU's orders. */
    private static final String SKU_BACKLOG = """
            SELECT count(*) FROM event_outbox e JOIN orders o ON o.order_id = e.aggregate_id
            WHERE o.activity_id = ? AND o.sku_id = ? AND e.status IN ('PENDING', 'RETRY', 'SENDING')
            """;
    /** Unsent events of a sale's orders and reservations. */
    private static final String SALE_BACKLOG = """
            SELECT count(*) FROM event_outbox e
            WHERE e.status IN ('PENDING', 'RETRY', 'SENDING')
              AND (e.aggregate_id IN (SELECT order_id FROM orders WHERE activity_id = ?)
                   OR e.aggregate_id IN (SELECT reservation_id FROM inventory_reservation WHERE activity_id = ?))
            """;

    private static final String OF_RESERVATION = """
            SELECT event_id, event_type, status, attempt_count, lease_owner, lease_until, last_error, created_at, sent_at
            FROM event_outbox
            WHERE aggregate_id IN (?, order_id_of(?))
            ORDER BY created_at
            """;

    private final JdbcTemplate jdbc;
    private final PipelineTrace trace;

    OutboxRepository(JdbcTemplate jdbc, PipelineTrace trace) {
        this.jdbc = jdbc;
        this.trace = trace;
    }

    record Claimed(
            UUID eventId,
            String aggregateType,
            UUID aggregateId,
            String eventType,
            String payload,
            int attempt,
            String traceparent) {}

    /** Inside the business transaction: events of one type. */
    void insert(String aggregateType, String eventType, List<OutboxEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        int n = events.size();
        String[] e = new String[n], a = new String[n], p = new String[n], tp = new String[n];
        String current = null;
        for (int i = 0; i < n; i++) {
            OutboxEvent ev = events.get(i);
            e[i] = ev.eventId().toString();
            a[i] = ev.aggregateId().toString();
            p[i] = ev.payloadJson();
            if (ev.traceparent() == null && current == null) {
                current = trace.currentTraceparent();
            }
            tp[i] = ev.traceparent() != null ? ev.traceparent() : current;
        }
        jdbc.update(INSERT, aggregateType, eventType, e, a, p, tp);
    }

    List<Claimed> claimDue(int limit, String owner, Duration lease) {
        return jdbc.query(
                CLAIM_DUE,
                (rs, i) -> new Claimed(
                        rs.getObject(1, UUID.class),
                        rs.getString(2),
                        rs.getObject(3, UUID.class),
                        rs.getString(4),
                        rs.getString(5),
                        rs.getInt(6),
                        rs.getString(7)),
                limit,
                owner,
                interval(lease));
    }

    /** @return how many rows this owner settled (rows whose lease was lost are not touched) */
    int markSent(List<UUID> eventIds, String owner) {
        return jdbc.update(MARK_SENT, Sql.uuids(eventIds), owner);
    }

    /** @return false when this owner no longer holds the row */
    boolean markManual(UUID eventId, String owner, String error) {
        return jdbc.update(MARK_MANUAL, truncate(error), eventId, owner) == 1;
    }

    boolean markRetry(UUID eventId, String owner, Backoff backoff, String error) {
        return jdbc.update(
                        MARK_RETRY, truncate(error), interval(backoff.base()), interval(backoff.max()), eventId, owner)
                == 1;
    }

    List<Outbox.Stale> stale(Duration watermark) {
        return jdbc.query(
                STALE, (rs, i) -> new Outbox.Stale(rs.getObject(1, UUID.class), rs.getInt(2)), interval(watermark));
    }

    /** SENDING with an expired lease -> RETRY; false when a relay settled or re-claimed it first. */
    boolean reclaim(UUID eventId) {
        return jdbc.update(RECLAIM, eventId) == 1;
    }

    long skuBacklog(long activityId, long skuId) {
        return count(jdbc.queryForObject(SKU_BACKLOG, Long.class, activityId, skuId));
    }

    long saleBacklog(long activityId) {
        return count(jdbc.queryForObject(SALE_BACKLOG, Long.class, activityId, activityId));
    }

    /** The events of a reservation and its order, for an operator's evidence. */
    List<Map<String, Object>> ofReservation(UUID reservationId) {
        return jdbc.queryForList(OF_RESERVATION, reservationId, reservationId);
    }

    int purgeSent(Duration retention, int limit) {
        return jdbc.update(PURGE, interval(retention), limit);
    }

    Backlog backlog() {
        return jdbc.queryForObject(BACKLOG, Backlog::of);
    }

    private static String truncate(String s) {
        return s == null ? null : s.length() > 1000 ? s.substring(0, 1000) : s;
    }
}
