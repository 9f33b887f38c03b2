package io.seckill.payment;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of payment and cancellation (design 9.9): every order move is a guarded UPDATE whose
 * WHERE clause is the rule, and the row count is the answer. Cancel work is leased (owner token on
 * the database clock) and every later write of that work checks the owner.
 */
@Repository
public class PaymentRepository {

    private static final String ORDER_COLUMNS = """
            o.order_id, o.activity_id, o.sku_id, o.user_id, o.reservation_id, o.status, o.amount, o.expires_at,
            o.paid_at, o.cancelled_at, o.cancel_reason, o.cancel_attempts
            """;
    private static final String FIND_ORDER = "SELECT " + ORDER_COLUMNS + " FROM orders o WHERE o.order_id = ?";
    /** CREATED -> PAYING while the order has not expired. */
    private static final String START_PAYING = """
            UPDATE orders
            SET status = 'PAYING', version = version + 1, updated_at = clock_timestamp()
            WHERE order_id = ? AND status = 'CREATED' AND expires_at > clock_timestamp()
            """;
    private static final String INSERT_ATTEMPT = """
            INSERT INTO payment_attempt (payment_id, order_id, provider, amount) VALUES (?, ?, ?, ?)
            ON CONFLICT (payment_id) DO NOTHING
            """;
    private static final String UPDATE_ATTEMPT = """
            UPDATE payment_attempt SET provider_transaction_id = ?, pay_url = ?, updated_at = clock_timestamp()
            WHERE payment_id = ?
            """;
    /** Design 9.9, with both unique keys (payment id, provider transaction id) as the idempotency guard. */
    private static final String INSERT_PAYMENT = """
            INSERT INTO payment_record (payment_id, order_id, provider, provider_transaction_id, amount, status, paid_at)
            VALUES (?, ?, ?, ?, ?, 'SUCCESS', ?)
            ON CONFLICT DO NOTHING
            """;
    private static final String FIND_PAYMENT = """
            SELECT payment_id, order_id, provider, provider_transaction_id, amount, status, refund_status
            FROM payment_record WHERE payment_id = ?
            """;
    /** Design 9.9: payment wins over CREATED, PAYING and CANCEL_PENDING. */
    private static final String MARK_PAID = """
            UPDATE orders
            SET status = 'PAID', paid_at = ?, version = version + 1, updated_at = clock_timestamp(),
                lease_owner = NULL, lease_until = NULL
            WHERE order_id = ? AND status IN ('CREATED', 'PAYING', 'CANCEL_PENDING')
            """;
    /**
     * Design 9.9 entry to CANCEL_PENDING for expired orders, a batch at a time, without waiting on locked
     * rows; an order an operator froze (design 11.6 step 1) is left alone.
     */
    private static final String MARK_EXPIRED = """
            WITH due AS (
                SELECT order_id FROM orders
                WHERE status IN ('CREATED', 'PAYING') AND expires_at <= clock_timestamp()
                  AND NOT EXISTS (SELECT 1 FROM manual_hold h WHERE h.object_type = 'ORDER' AND h.object_id = order_id::text)
                ORDER BY expires_at
                LIMIT ?
                FOR UPDATE SKIP LOCKED
            )
            UPDATE orders AS o
            SET status = 'CANCEL_PENDING', cancel_reason = 'PAYMENT_TIMEOUT', cancel_next_at = clock_timestamp(),
                version = o.version + 1, updated_at = clock_timestamp()
            FROM due
            WHERE o.order_id = due.order_id AND o.status IN ('CREATED', 'PAYING') AND o.expires_at <= clock_timestamp()
            RETURNING
            """ + ORDER_COLUMNS;
    /** The buyer gives up an unpaid order; no expiry condition. */
    private static final String MARK_BUYER_CANCEL = """
            UPDATE orders AS o
            SET status = 'CANCEL_PENDING', cancel_reason = 'BUYER_CANCELLED', cancel_next_at = clock_timestamp(),
                version = o.version + 1, updated_at = clock_timestamp()
            WHERE o.order_id = ? AND o.user_id = ? AND o.status IN ('CREATED', 'PAYING')
            RETURNING
            """ + ORDER_COLUMNS;
    private static final String CLAIM_PENDING = """
            WITH due AS (
                SELECT order_id FROM orders
                WHERE status = 'CANCEL_PENDING' AND cancel_next_at <= clock_timestamp()
                  AND (lease_until IS NULL OR lease_until < clock_timestamp())
                  AND NOT EXISTS (SELECT 1 FROM manual_hold h WHERE h.object_type = 'ORDER' AND h.object_id = order_id::text)
                ORDER BY cancel_next_at
                LIMIT ?
                FOR UPDATE SKIP LOCKED
            )
            UPDATE orders AS o
            SET lease_owner = ?, lease_until = clock_timestamp() + ?::interval, cancel_attempts = o.cancel_attempts + 1
            FROM due
            WHERE o.order_id = due.order_id AND o.status = 'CANCEL_PENDING'
            RETURNING
            """ + ORDER_COLUMNS;
    private static final String CLAIM_ONE = """
            UPDATE orders AS o
            SET lease_owner = ?, lease_until = clock_timestamp() + ?::interval, cancel_attempts = o.cancel_attempts + 1
            WHERE o.order_id = ? AND o.status = 'CANCEL_PENDING'
              AND (o.lease_until IS NULL OR o.lease_until < clock_timestamp())
            RETURNING
            """ + ORDER_COLUMNS;
    /** The channel could not say: try again later, with exponential backoff; never cancel on an unknown. */
    private static final String CANCEL_BACKOFF = """
            UPDATE orders
            SET lease_owner = NULL, lease_until = NULL,
                cancel_next_at = clock_timestamp()
                    + least(?::interval * power(2, least(greatest(cancel_attempts - 1, 0), 16)), ?::interval)
            WHERE order_id = ? AND status = 'CANCEL_PENDING' AND lease_owner = ?
            """;
    /** Design 9.9 final cancel, fenced by the canceller's lease. */
    private static final String MARK_CANCELLED = """
            UPDATE orders
            SET status = 'CANCELLED', cancelled_at = clock_timestamp(), version = version + 1,
                updated_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL
            WHERE order_id = ?
              AND status = 'CANCEL_PENDING'
              AND lease_owner = ?
              AND NOT EXISTS (SELECT 1 FROM payment_record p WHERE p.order_id = orders.order_id AND p.status = 'SUCCESS')
            """;
    private static final String START_REFUND = """
            UPDATE payment_record
            SET refund_status = 'REFUNDING', refund_id = ?, refund_next_at = clock_timestamp(), updated_at = clock_timestamp()
            WHERE payment_id = ? AND refund_status IS NULL
            """;
    private static final String CLAIM_REFUNDS = """
            WITH due AS (
                SELECT payment_id FROM payment_record
                WHERE refund_status = 'REFUNDING' AND refund_next_at <= clock_timestamp()
                  AND (lease_until IS NULL OR lease_until < clock_timestamp())
                ORDER BY refund_next_at
                LIMIT ?
                FOR UPDATE SKIP LOCKED
            )
            UPDATE payment_record AS p
            SET lease_owner = ?, lease_until = clock_timestamp() + ?::interval, refund_attempts = p.refund_attempts + 1
            FROM due
            WHERE p.payment_id = due.payment_id AND p.refund_status = 'REFUNDING'
            RETURNING p.payment_id, p.order_id, p.amount, p.refund_id, p.refund_attempts
            """;
    private static final String MARK_REFUNDED = """
            UPDATE payment_record
            SET refund_status = 'REFUNDED', refunded_at = clock_timestamp(), updated_at = clock_timestamp(),
                lease_owner = NULL, lease_until = NULL
            WHERE payment_id = ? AND refund_status = 'REFUNDING' AND lease_owner = ?
            """;
    private static final String REFUND_BACKOFF = """
            UPDATE payment_record
            SET lease_owner = NULL, lease_until = NULL,
                refund_next_at = clock_timestamp()
                    + least(?::interval * power(2, least(greatest(refund_attempts - 1, 0), 16)), ?::interval)
            WHERE payment_id = ? AND refund_status = 'REFUNDING' AND lease_owner = ?
            """;
    private static final String CANCEL_BACKLOG = """
            SELECT count(*), coalesce(extract(epoch FROM clock_timestamp() - min(updated_at)), 0)
            FROM orders WHERE status = 'CANCEL_PENDING'
            """;

    private static final String PAYMENT_COUNTS = """
            SELECT coalesce(p.refund_status, p.status), count(*)
            FROM payment_record p JOIN orders o ON o.order_id = p.order_id
            WHERE o.activity_id = ? GROUP BY 1
            """;

    private final JdbcTemplate jdbc;

    PaymentRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** A payment as recorded. */
    public record Payment(UUID paymentId, UUID orderId, String provider, String providerTransactionId, BigDecimal amount,
            String status, String refundStatus) {
    }

    /** A refund to drive through the channel. */
    public record Refund(UUID paymentId, UUID orderId, BigDecimal amount, UUID refundId, int attempts) {
    }

    public record Backlog(long pending, double oldestAgeSeconds) {
    }

    public Optional<OrderRecord> order(UUID orderId) {
        return jdbc.query(FIND_ORDER, PaymentRepository::orderRow, orderId).stream().findFirst();
    }

    public boolean startPaying(UUID orderId) {
        return jdbc.update(START_PAYING, orderId) == 1;
    }

    public void recordAttempt(UUID paymentId, UUID orderId, String provider, BigDecimal amount) {
        jdbc.update(INSERT_ATTEMPT, paymentId, orderId, provider, amount);
    }

    public void attemptOpened(UUID paymentId, String providerTransactionId, String payUrl) {
        jdbc.update(UPDATE_ATTEMPT, providerTransactionId, payUrl, paymentId);
    }

    /** @return true when this call inserted the record (false: the payment or the channel transaction was known) */
    public boolean insertPayment(UUID paymentId, UUID orderId, String provider, String providerTransactionId,
            BigDecimal amount, Instant paidAt) {
        return jdbc.update(INSERT_PAYMENT, paymentId, orderId, provider, providerTransactionId, amount,
                Timestamp.from(paidAt)) == 1;
    }

    public Optional<Payment> payment(UUID paymentId) {
        return jdbc.query(FIND_PAYMENT, (rs, i) -> new Payment(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class),
                rs.getString(3), rs.getString(4), rs.getBigDecimal(5), rs.getString(6), rs.getString(7)), paymentId)
                .stream().findFirst();
    }

    public boolean markPaid(UUID orderId, Instant paidAt) {
        return jdbc.update(MARK_PAID, Timestamp.from(paidAt), orderId) == 1;
    }

    public List<OrderRecord> markExpired(int limit) {
        return jdbc.query(MARK_EXPIRED, PaymentRepository::orderRow, limit);
    }

    public Optional<OrderRecord> markBuyerCancel(UUID orderId, long userId) {
        return jdbc.query(MARK_BUYER_CANCEL, PaymentRepository::orderRow, orderId, userId).stream().findFirst();
    }

    public List<OrderRecord> claimPending(int limit, String owner, Duration lease) {
        return jdbc.query(CLAIM_PENDING, PaymentRepository::orderRow, limit, owner, interval(lease));
    }

    public Optional<OrderRecord> claimPending(UUID orderId, String owner, Duration lease) {
        return jdbc.query(CLAIM_ONE, PaymentRepository::orderRow, owner, interval(lease), orderId).stream().findFirst();
    }

    public boolean cancelBackoff(UUID orderId, String owner, Duration base, Duration max) {
        return jdbc.update(CANCEL_BACKOFF, interval(base), interval(max), orderId, owner) == 1;
    }

    public boolean markCancelled(UUID orderId, String owner) {
        return jdbc.update(MARK_CANCELLED, orderId, owner) == 1;
    }

    public boolean startRefund(UUID paymentId, UUID refundId) {
        return jdbc.update(START_REFUND, refundId, paymentId) == 1;
    }

    public List<Refund> claimRefunds(int limit, String owner, Duration lease) {
        return jdbc.query(CLAIM_REFUNDS, (rs, i) -> new Refund(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class),
                rs.getBigDecimal(3), rs.getObject(4, UUID.class), rs.getInt(5)), limit, owner, interval(lease));
    }

    public boolean markRefunded(UUID paymentId, String owner) {
        return jdbc.update(MARK_REFUNDED, paymentId, owner) == 1;
    }

    public boolean refundBackoff(UUID paymentId, String owner, Duration base, Duration max) {
        return jdbc.update(REFUND_BACKOFF, interval(base), interval(max), paymentId, owner) == 1;
    }

    public Backlog cancelBacklog() {
        return jdbc.queryForObject(CANCEL_BACKLOG, (rs, i) -> new Backlog(rs.getLong(1), rs.getDouble(2)));
    }

    /** Payment records of a sale by state: SUCCESS (kept), REFUNDING, REFUNDED. */
    public java.util.Map<String, Long> paymentCounts(long activityId) {
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        jdbc.query(PAYMENT_COUNTS, rs -> {
            out.put(rs.getString(1), rs.getLong(2));
        }, activityId);
        return out;
    }

    private static OrderRecord orderRow(ResultSet rs, int i) throws SQLException {
        return new OrderRecord(rs.getObject(1, UUID.class), rs.getLong(2), rs.getLong(3), rs.getLong(4),
                rs.getObject(5, UUID.class), rs.getString(6), rs.getBigDecimal(7), instant(rs.getTimestamp(8)),
                instant(rs.getTimestamp(9)), instant(rs.getTimestamp(10)), rs.getString(11), rs.getInt(12));
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }

    private static String interval(Duration d) {
        return d.toMillis() + " milliseconds";
    }
}
