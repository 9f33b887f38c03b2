package io.seckill.reconcile;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

import io.seckill.mq.Json;

/**
 * The SQL of reconciliation (design 10.6, 13.5): only rows older than the watermark are judged,
 * objects under a manual hold are skipped, and every repair is a {@code repair_task} row whose id
 * is the hash of what it saw - inserted once, run by whoever claims it.
 */
@Repository
public class ReconcileRepository {

    /**
     * The change window of one SKU: reservations whose row changed after the cursor (updated_at, id)
     * and before the watermark, in change order (index idx_inventory_reservation_sku_changed).
     */
    private static final String CHANGED_RESERVATIONS = """
            SELECT r.reservation_id, r.user_id, r.status, r.version, r.order_id, o.status, t.task_id, t.status,
                   (t.lease_until IS NOT NULL AND t.lease_until < clock_timestamp()), r.request_id, r.message_id,
                   r.updated_at, r.reservation_id
            FROM inventory_reservation r
            LEFT JOIN orders o ON o.order_id = r.order_id
            LEFT JOIN compensation_task t ON t.reservation_id = r.reservation_id
            WHERE r.activity_id = ? AND r.sku_id = ? AND (r.updated_at, r.reservation_id) > (?, ?)
              AND r.updated_at < clock_timestamp() - ?::interval
              AND (o.updated_at IS NULL OR o.updated_at < clock_timestamp() - ?::interval)
              AND NOT EXISTS (SELECT 1 FROM manual_hold h WHERE h.object_id = r.reservation_id::text)
              AND NOT EXISTS (SELECT 1 FROM manual_hold h WHERE h.object_id = r.order_id::text)
              AND NOT EXISTS (SELECT 1 FROM event_outbox e
                              WHERE e.aggregate_id = r.reservation_id AND e.status IN ('PENDING', 'RETRY', 'SENDING'))
              AND NOT EXISTS (SELECT 1 FROM event_outbox e
                              WHERE e.aggregate_id = r.order_id AND e.status IN ('PENDING', 'RETRY', 'SENDING'))
            ORDER BY r.updated_at, r.reservation_id
            LIMIT ?
            """;
    /** The same for orders that changed (paid, cancelled) while their reservation row did not (idx_orders_sku_changed). */
    private static final String CHANGED_ORDERS = """
            SELECT r.reservation_id, r.user_id, r.status, r.version, r.order_id, o.status, t.task_id, t.status,
                   (t.lease_until IS NOT NULL AND t.lease_until < clock_timestamp()), r.request_id, r.message_id,
                   o.updated_at, o.order_id
            FROM orders o
            JOIN inventory_reservation r ON r.reservation_id = o.reservation_id
            LEFT JOIN compensation_task t ON t.reservation_id = r.reservation_id
            WHERE o.activity_id = ? AND o.sku_id = ? AND (o.updated_at, o.order_id) > (?, ?)
              AND o.updated_at < clock_timestamp() - ?::interval
              AND r.updated_at < clock_timestamp() - ?::interval
              AND NOT EXISTS (SELECT 1 FROM manual_hold h WHERE h.object_id = r.reservation_id::text)
              AND NOT EXISTS (SELECT 1 FROM manual_hold h WHERE h.object_id = o.order_id::text)
              AND NOT EXISTS (SELECT 1 FROM event_outbox e
                              WHERE e.aggregate_id = r.reservation_id AND e.status IN ('PENDING', 'RETRY', 'SENDING'))
              AND NOT EXISTS (SELECT 1 FROM event_outbox e
                              WHERE e.aggregate_id = o.order_id AND e.status IN ('PENDING', 'RETRY', 'SENDING'))
            ORDER BY o.updated_at, o.order_id
            LIMIT ?
            """;
    private static final String WINDOW_START = "SELECT clock_timestamp() - ?::interval";
    private static final String STALE_OUTBOX = """
            SELECT event_id, attempt_count FROM event_outbox
            WHERE status = 'SENDING' AND lease_until < clock_timestamp() - ?::interval
            LIMIT 1000
            """;
    private static final String RECLAIM_OUTBOX = """
            UPDATE event_outbox
            SET status = 'RETRY', lease_owner = NULL, lease_until = NULL, next_retry_at = clock_timestamp(),
                last_error = 'lease expired; re-claimed by reconciliation'
            WHERE event_id = ? AND status = 'SENDING' AND lease_until < clock_timestamp()
            """;
    private static final String ACTIVITY_OUTBOX_BACKLOG = """
            SELECT count(*) FROM event_outbox e JOIN orders o ON o.order_id = e.aggregate_id
            WHERE o.activity_id = ? AND o.sku_id = ? AND e.status IN ('PENDING', 'RETRY', 'SENDING')
            """;
    private static final String INSERT_REPAIR = """
            INSERT INTO repair_task (repair_id, object_type, object_id, rule_name, expected_version, target_state,
                                     operator, reason, evidence)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)
            ON CONFLICT (repair_id) DO NOTHING
            """;
    /** Whoever moves it to RUNNING runs it; a runner that died leaves it claimable after a minute. */
    private static final String CLAIM_REPAIR = """
            UPDATE repair_task SET status = 'RUNNING', updated_at = clock_timestamp()
            WHERE repair_id = ?
              AND (status IN ('PENDING', 'FAILED')
                   OR (status = 'RUNNING' AND updated_at < clock_timestamp() - interval '60 seconds'))
            """;
    private static final String FINISH_REPAIR = """
            UPDATE repair_task SET status = ?, result = ?, updated_at = clock_timestamp()
            WHERE repair_id = ? AND status = 'RUNNING'
            """;
    private static final String TAKE_LEASE = """
            UPDATE reconcile_lease SET owner = ?, lease_until = clock_timestamp() + ?::interval
            WHERE name = 'reconciler' AND (lease_until IS NULL OR lease_until < clock_timestamp() OR owner = ?)
            """;

    /** Every reservation PostgreSQL decided for a SKU, with what Redis must know of it (held ones excepted). */
    private static final String KNOWN = """
            SELECT r.reservation_id, r.user_id, r.status, r.order_id, o.status, t.task_id, r.request_id, r.message_id
            FROM inventory_reservation r
            LEFT JOIN orders o ON o.order_id = r.order_id
            LEFT JOIN compensation_task t ON t.reservation_id = r.reservation_id
            WHERE r.activity_id = ? AND r.sku_id = ?
              AND NOT EXISTS (SELECT 1 FROM manual_hold h WHERE h.object_id = r.reservation_id::text)
            """;
    private static final String REPAIRS_DONE = """
            SELECT count(*) FROM repair_task WHERE rule_name = ? AND object_id = ? AND status = 'DONE'
            """;

    private final JdbcTemplate jdbc;

    ReconcileRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** One reservation as reconciliation sees it. */
    public record Row(UUID reservationId, long userId, String status, long version, UUID orderId, String orderStatus,
            UUID taskId, String taskStatus, boolean taskLeaseExpired, UUID requestId, UUID messageId) {
    }

    /** Where a change window stopped: the last (updated_at, id) judged. */
    public record Cursor(java.time.Instant changedAt, UUID id) {
        public static final Cursor START = new Cursor(java.time.Instant.EPOCH, new UUID(0, 0));
    }

    /** A page of a change window: the rows and the cursor after the last of them. */
    public record Page(List<Row> rows, Cursor next) {
    }

    /** Reservations of the SKU changed after {@code after}; {@code orders}: those whose order changed instead. */
    public Page changed(boolean orders, long activityId, long skuId, Cursor after, Duration watermark, int limit) {
        String w = interval(watermark);
        List<Row> rows = new java.util.ArrayList<>();
        Cursor[] last = {after};
        jdbc.query(orders ? CHANGED_ORDERS : CHANGED_RESERVATIONS, rs -> {
            rows.add(new Row(rs.getObject(1, UUID.class), rs.getLong(2), rs.getString(3), rs.getLong(4),
                    rs.getObject(5, UUID.class), rs.getString(6), rs.getObject(7, UUID.class), rs.getString(8), rs.getBoolean(9),
                    rs.getObject(10, UUID.class), rs.getObject(11, UUID.class)));
            last[0] = new Cursor(rs.getTimestamp(12).toInstant(), rs.getObject(13, UUID.class));
        }, activityId, skuId, java.sql.Timestamp.from(after.changedAt()), after.id(), w, w, limit);
        return new Page(rows, last[0]);
    }

    /** Where change windows begin after a full pass judged everything older than the watermark (database clock). */
    public Cursor windowStart(Duration watermark) {
        java.sql.Timestamp t = jdbc.queryForObject(WINDOW_START, java.sql.Timestamp.class, interval(watermark));
        return new Cursor(t.toInstant(), new UUID(0, 0));
    }

    public record StaleEvent(UUID eventId, int attempts) {
    }

    public List<StaleEvent> staleOutbox(Duration watermark) {
        return jdbc.query(STALE_OUTBOX, (rs, i) -> new StaleEvent(rs.getObject(1, UUID.class), rs.getInt(2)),
                interval(watermark));
    }

    public boolean reclaimOutbox(UUID eventId) {
        return jdbc.update(RECLAIM_OUTBOX, eventId) == 1;
    }

    public long outboxBacklog(long activityId, long skuId) {
        Long n = jdbc.queryForObject(ACTIVITY_OUTBOX_BACKLOG, Long.class, activityId, skuId);
        return n == null ? 0 : n;
    }

    public record Known(UUID reservationId, long userId, String status, UUID orderId, String orderStatus, UUID taskId,
            UUID requestId, UUID messageId) {
    }

    public List<Known> known(long activityId, long skuId) {
        return jdbc.query(KNOWN, (rs, i) -> new Known(rs.getObject(1, UUID.class), rs.getLong(2), rs.getString(3),
                rs.getObject(4, UUID.class), rs.getString(5), rs.getObject(6, UUID.class), rs.getObject(7, UUID.class),
                rs.getObject(8, UUID.class)), activityId, skuId);
    }

    public long repairsDone(String rule, String objectId) {
        Long n = jdbc.queryForObject(REPAIRS_DONE, Long.class, rule, objectId);
        return n == null ? 0 : n;
    }

    public boolean insertRepair(String repairId, String objectType, String objectId, String rule, Long expectedVersion,
            String target, String operator, String reason, Object evidence) {
        return jdbc.update(INSERT_REPAIR, repairId, objectType, objectId, rule, expectedVersion, target, operator, reason,
                Json.text(evidence)) == 1;
    }

    public boolean claimRepair(String repairId) {
        return jdbc.update(CLAIM_REPAIR, repairId) == 1;
    }

    public void finishRepair(String repairId, String status, String result) {
        jdbc.update(FINISH_REPAIR, status, result == null ? null : result.length() > 1000 ? result.substring(0, 1000) : result,
                repairId);
    }

    public boolean takeLease(String owner, Duration lease) {
        return jdbc.update(TAKE_LEASE, owner, interval(lease), owner) == 1;
    }

    static String interval(Duration d) {
        return d.toMillis() + " milliseconds";
    }
}
