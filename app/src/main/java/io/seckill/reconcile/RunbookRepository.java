package io.seckill.reconcile;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of the operator's runbook (design 11.6): finding a reservation from any business id,
 * reading every PostgreSQL source of evidence, freezing, and the guarded moves of manual repair.
 */
@Repository
public class RunbookRepository {

    /** Any business id that is a UUID -> the reservation it belongs to (every comparison on an indexed uuid column). */
    private static final String RESOLVE = """
            SELECT r.reservation_id FROM inventory_reservation r
            WHERE r.reservation_id = ?::uuid OR r.request_id = ?::uuid OR r.message_id = ?::uuid OR r.order_id = ?::uuid
            UNION
            SELECT o.reservation_id FROM orders o WHERE o.order_id = ?::uuid
            UNION
            SELECT o.reservation_id FROM payment_attempt a JOIN orders o ON o.order_id = a.order_id WHERE a.payment_id = ?::uuid
            UNION
            SELECT o.reservation_id FROM payment_record p JOIN orders o ON o.order_id = p.order_id
            WHERE p.payment_id = ?::uuid OR p.provider_transaction_id = ?
            UNION
            SELECT t.reservation_id FROM compensation_task t WHERE t.task_id = ?::uuid
            LIMIT 2
            """;
    /** Any other business id: only a channel's transaction id can be one. */
    private static final String RESOLVE_TEXT = """
            SELECT o.reservation_id FROM payment_record p JOIN orders o ON o.order_id = p.order_id
            WHERE p.provider_transaction_id = ?
            LIMIT 2
            """;
    private static final String RESERVATION = "SELECT * FROM inventory_reservation WHERE reservation_id = ?";
    private static final String ORDER = "SELECT * FROM orders WHERE reservation_id = ?";
    private static final String PAYMENTS = """
            SELECT p.* FROM payment_record p JOIN orders o ON o.order_id = p.order_id WHERE o.reservation_id = ?
            """;
    private static final String ATTEMPTS = """
            SELECT a.* FROM payment_attempt a JOIN orders o ON o.order_id = a.order_id WHERE o.reservation_id = ?
            """;
    private static final String LEDGER = "SELECT * FROM inventory_ledger WHERE reservation_id = ? ORDER BY ledger_id";
    private static final String INBOX = "SELECT consumer_group, message_id, result_code, order_id, processed_at "
            + "FROM consumer_inbox WHERE reservation_id = ?";
    private static final String OUTBOX = """
            SELECT event_id, event_type, status, attempt_count, lease_owner, lease_until, last_error, created_at, sent_at
            FROM event_outbox
            WHERE aggregate_id = ? OR aggregate_id = (SELECT order_id FROM orders WHERE reservation_id = ?)
            ORDER BY created_at
            """;
    private static final String TASKS = "SELECT * FROM compensation_task WHERE reservation_id = ?";
    private static final String REPAIRS = "SELECT * FROM repair_task WHERE object_id = ANY (?) ORDER BY created_at";
    private static final String FREEZE_RESERVATION = """
            UPDATE inventory_reservation SET status = 'MANUAL_REVIEW', version = version + 1, updated_at = clock_timestamp()
            WHERE reservation_id = ? AND status IN ('RESERVED', 'ORDER_REJECTED', 'COMPENSATING')
            """;
    private static final String FREEZE_TASKS = """
            UPDATE compensation_task SET status = 'MANUAL', lease_owner = NULL, lease_until = NULL,
                   last_result = 'FROZEN', updated_at = clock_timestamp()
            WHERE reservation_id = ? AND status IN ('PENDING', 'CLAIMED', 'RETRY')
            """;
    private static final String UNFREEZE_RESERVATION = """
            UPDATE inventory_reservation SET status = ?, version = version + 1, updated_at = clock_timestamp()
            WHERE reservation_id = ? AND status = 'MANUAL_REVIEW' AND ? IN ('RESERVED', 'ORDER_REJECTED', 'COMPENSATING')
            """;
    private static final String UNFREEZE_TASKS = """
            UPDATE compensation_task SET status = 'RETRY', next_retry_at = clock_timestamp(), last_result = 'RELEASED',
                   updated_at = clock_timestamp()
            WHERE reservation_id = ? AND status = 'MANUAL'
            """;

    private static final String INSERT_ADJUSTMENT = """
            INSERT INTO stock_adjustment (adjustment_id, activity_id, sku_id, delta, reason, operator)
            VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (adjustment_id) DO NOTHING
            """;
    private static final String ADJUST_PG = """
            UPDATE sku_inventory
            SET initial_stock = initial_stock + ?, available_stock = available_stock + ?, version = version + 1,
                updated_at = clock_timestamp()
            WHERE activity_id = ? AND sku_id = ? AND available_stock + ? >= 0
            """;
    private static final String ADJUST_LEDGER = """
            INSERT INTO inventory_ledger (activity_id, sku_id, change_type, delta_available, delta_occupied, delta_sold,
                                          idempotency_key)
            VALUES (?, ?, 'ADJUST', ?, 0, 0, ?)
            """;
    private static final String FIND_ADJUSTMENT = """
            SELECT activity_id, sku_id, delta, redis_applied_at IS NOT NULL FROM stock_adjustment WHERE adjustment_id = ?
            """;
    private static final String ADJUSTMENT_REDIS_DONE = """
            UPDATE stock_adjustment SET redis_applied_at = clock_timestamp() WHERE adjustment_id = ? AND redis_applied_at IS NULL
            """;
    private static final String PENDING_ADJUSTMENTS = """
            SELECT adjustment_id FROM stock_adjustment
            WHERE redis_applied_at IS NULL AND created_at < clock_timestamp() - ?::interval
            ORDER BY created_at LIMIT 100
            """;
    private static final String UNSETTLED_TASKS = """
            SELECT count(*) FROM compensation_task t JOIN inventory_reservation r ON r.reservation_id = t.reservation_id
            WHERE r.activity_id = ? AND t.status IN ('PENDING', 'CLAIMED', 'RETRY')
            """;
    private static final String ACTIVITY_OUTBOX = """
            SELECT count(*) FROM event_outbox e
            WHERE e.status IN ('PENDING', 'RETRY', 'SENDING')
              AND (e.aggregate_id IN (SELECT order_id FROM orders WHERE activity_id = ?)
                   OR e.aggregate_id IN (SELECT reservation_id FROM inventory_reservation WHERE activity_id = ?))
            """;
    private static final String COUNT_BY = "SELECT %s, count(*) FROM %s WHERE activity_id = ? GROUP BY 1 ORDER BY 1";
    private static final String CLOSED_OUT = "UPDATE activity SET closed_out_at = clock_timestamp() WHERE activity_id = ?";

    private final JdbcTemplate jdbc;

    RunbookRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** The reservation behind any business id; empty when unknown, an error when ambiguous. */
    public Optional<UUID> resolve(String anyId) {
        List<UUID> found;
        try {
            String id = UUID.fromString(anyId).toString();
            found = jdbc.query(RESOLVE, (rs, i) -> rs.getObject(1, UUID.class), id, id, id, id, id, id, id, anyId, id);
        } catch (IllegalArgumentException notUuid) {
            found = jdbc.query(RESOLVE_TEXT, (rs, i) -> rs.getObject(1, UUID.class), anyId);
        }
        if (found.size() > 1) {
            throw new IllegalArgumentException("id " + anyId + " matches more than one reservation");
        }
        return found.stream().findFirst();
    }

    public List<Map<String, Object>> reservation(UUID rid) {
        return jdbc.queryForList(RESERVATION, rid);
    }

    public List<Map<String, Object>> order(UUID rid) {
        return jdbc.queryForList(ORDER, rid);
    }

    public List<Map<String, Object>> payments(UUID rid) {
        return jdbc.queryForList(PAYMENTS, rid);
    }

    public List<Map<String, Object>> paymentAttempts(UUID rid) {
        return jdbc.queryForList(ATTEMPTS, rid);
    }

    public List<Map<String, Object>> ledger(UUID rid) {
        return jdbc.queryForList(LEDGER, rid);
    }

    public List<Map<String, Object>> inbox(UUID rid) {
        return jdbc.queryForList(INBOX, rid);
    }

    public List<Map<String, Object>> outbox(UUID rid) {
        return jdbc.queryForList(OUTBOX, rid, rid);
    }

    public List<Map<String, Object>> tasks(UUID rid) {
        return jdbc.queryForList(TASKS, rid);
    }

    public List<Map<String, Object>> repairs(List<String> objectIds) {
        return jdbc.queryForList(REPAIRS, (Object) objectIds.toArray(String[]::new));
    }

    /** @return false when this adjustment id was already recorded */
    public boolean insertAdjustment(UUID id, long activityId, long skuId, int delta, String reason, String operator) {
        return jdbc.update(INSERT_ADJUSTMENT, id, activityId, skuId, delta, reason, operator) == 1;
    }

    /** initial and available move by {@code delta}; refused (false) when available would go below zero. */
    public boolean adjustPg(long activityId, long skuId, int delta) {
        return jdbc.update(ADJUST_PG, delta, delta, activityId, skuId, delta) == 1;
    }

    public void adjustLedger(UUID id, long activityId, long skuId, int delta) {
        jdbc.update(ADJUST_LEDGER, activityId, skuId, delta, "ADJUST:" + id);
    }

    public record Adjustment(long activityId, long skuId, int delta, boolean redisApplied) {
    }

    public Optional<Adjustment> adjustment(UUID id) {
        return jdbc.query(FIND_ADJUSTMENT, (rs, i) -> new Adjustment(rs.getLong(1), rs.getLong(2), rs.getInt(3),
                rs.getBoolean(4)), id).stream().findFirst();
    }

    public void adjustmentRedisDone(UUID id) {
        jdbc.update(ADJUSTMENT_REDIS_DONE, id);
    }

    /** Adjustments whose PostgreSQL half committed but whose Redis half was not applied. */
    public List<UUID> pendingAdjustments(java.time.Duration olderThan) {
        return jdbc.query(PENDING_ADJUSTMENTS, (rs, i) -> rs.getObject(1, UUID.class), olderThan.toMillis() + " milliseconds");
    }

    public long unsettledTasks(long activityId) {
        Long n = jdbc.queryForObject(UNSETTLED_TASKS, Long.class, activityId);
        return n == null ? 0 : n;
    }

    public long activityOutbox(long activityId) {
        Long n = jdbc.queryForObject(ACTIVITY_OUTBOX, Long.class, activityId, activityId);
        return n == null ? 0 : n;
    }

    /** Rows of an activity by one column: orders by status, the ledger by change type, and so on. */
    public Map<String, Long> countBy(String table, String column, long activityId) {
        if (!table.matches("[a-z_]+") || !column.matches("[a-z_]+")) {
            throw new IllegalArgumentException("bad table or column");
        }
        Map<String, Long> out = new java.util.TreeMap<>();
        jdbc.query(String.format(COUNT_BY, column, table), rs -> {
            out.put(rs.getString(1), rs.getLong(2));
        }, activityId);
        return out;
    }

    public void closedOut(long activityId) {
        jdbc.update(CLOSED_OUT, activityId);
    }

    public boolean freezeReservation(UUID rid) {
        return jdbc.update(FREEZE_RESERVATION, rid) == 1;
    }

    public int freezeTasks(UUID rid) {
        return jdbc.update(FREEZE_TASKS, rid);
    }

    public boolean unfreezeReservation(UUID rid, String previous) {
        return jdbc.update(UNFREEZE_RESERVATION, previous, rid, previous) == 1;
    }

    public int unfreezeTasks(UUID rid) {
        return jdbc.update(UNFREEZE_TASKS, rid);
    }
}
