package io.seckill.payment;

import static io.seckill.db.Sql.count;
import static io.seckill.db.Sql.interval;

import io.seckill.db.Sql;
import io.seckill.retry.Backoff;
import io.seckill.state.PaymentStatus;
import io.seckill.state.RefundStatus;
import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code payment_attempt} and {@code payment_record}: what was asked of the channel, what
 * it confirmed, and the refunds of money an order may not keep ({@link RefundStatus}). Both unique
 * keys of a record (payment id, channel transaction id) are the idempotency guard of a callback.
 */
@Repository
class PaymentRepository {

    private static final String INSERT_ATTEMPT = """
            INSERT INTO payment_attempt (payment_id, order_id, provider, amount) VALUES (?, ?, ?, ?)
            ON CONFLICT (payment_id) DO NOTHING
            """;
    private static final String UPDATE_ATTEMPT = """
            UPDATE payment_attempt SET provider_transaction_id = ?, pay_url = ?, updated_at = clock_timestamp()
            WHERE payment_id = ?
            """;
    private static final String INSERT_PAYMENT = """
            INSERT INTO payment_record (payment_id, order_id, provider, provider_transaction_id, amount, status, paid_at)
            VALUES (?, ?, ?, ?, ?, 'SUCCESS', ?)
            ON CONFLICT DO NOTHING
            """;
    private static final String FIND_PAYMENT = """
            SELECT payment_id, order_id, provider, provider_transaction_id, amount, status, refund_status
            FROM payment_record WHERE payment_id = ?
            """;
    private static final String START_REFUND = """
            UPDATE payment_record
            SET refund_status = 'REFUNDING', refund_id = ?, refund_next_at = clock_timestamp(), updated_at = clock_timestamp()
            WHERE payment_id = ? AND refund_status IS NULL
            """;
    private static final String CLAIM_REFUNDS = Sql.claimBatch(
                    "payment_record",
                    "p",
                    "payment_id",
                    """
            refund_status = 'REFUNDING' AND refund_next_at %s
              AND (lease_until IS NULL OR lease_until < clock_timestamp())""".formatted(Sql.DUE),
                    "refund_next_at",
                    Sql.LEASE + ", refund_attempts = p.refund_attempts + 1",
                    "p.refund_status = 'REFUNDING'")
            + "RETURNING p.payment_id, p.order_id, p.amount, p.refund_id, p.refund_attempts";
    private static final String MARK_REFUNDED = """
            UPDATE payment_record
            SET refund_status = 'REFUNDED', refunded_at = clock_timestamp(), updated_at = clock_timestamp(),
                lease_owner = NULL, lease_until = NULL
            WHERE payment_id = ? AND refund_status = 'REFUNDING' AND lease_owner = ?
            """;
    private static final String REFUND_BACKOFF = """
            UPDATE payment_record
            SET lease_owner = NULL, lease_until = NULL, refund_next_at = clock_timestamp() +
            """ + Backoff.SQL_DELAY.formatted("refund_attempts") + """
            WHERE payment_id = ? AND refund_status = 'REFUNDING' AND lease_owner = ?
            """;
    private static final String PAYMENT_COUNTS = """
            SELECT coalesce(p.refund_status, p.status), count(*)
            FROM payment_record p JOIN orders o ON o.order_id = p.order_id
            WHERE o.activity_id = ? GROUP BY 1
            """;
    /** Money kept for an order that is not PAID: it must be on its way back. */
    private static final String UNREFUNDED = """
            SELECT count(*) FROM payment_record p JOIN orders o ON o.order_id = p.order_id
            WHERE o.activity_id = ? AND p.status = 'SUCCESS' AND o.status <> 'PAID' AND p.refund_status IS NULL
            """;
    /** The reservation behind a payment id or a channel transaction id. */
    private static final String RESERVATION_OF_RECORD = """
            SELECT o.reservation_id FROM payment_record p JOIN orders o ON o.order_id = p.order_id
            WHERE p.payment_id = ?::uuid OR p.provider_transaction_id = ?
            LIMIT 2
            """;

    private static final String RESERVATION_OF_TRANSACTION = """
            SELECT o.reservation_id FROM payment_record p JOIN orders o ON o.order_id = p.order_id
            WHERE p.provider_transaction_id = ?
            LIMIT 2
            """;
    private static final String RESERVATION_OF_ATTEMPT = """
            SELECT o.reservation_id FROM payment_attempt a JOIN orders o ON o.order_id = a.order_id WHERE a.payment_id = ?
            """;
    private static final String RECORDS_OF_RESERVATION = """
            SELECT p.* FROM payment_record p JOIN orders o ON o.order_id = p.order_id WHERE o.order_id = order_id_of(?)
            """;
    private static final String ATTEMPTS_OF_RESERVATION = """
            SELECT a.* FROM payment_attempt a JOIN orders o ON o.order_id = a.order_id WHERE o.order_id = order_id_of(?)
            """;

    /** Of the given payment ids, those with no payment record. */
    private static final String UNRECORDED = """
            SELECT id FROM unnest(?::uuid[]) AS id
            WHERE NOT EXISTS (SELECT 1 FROM payment_record p WHERE p.payment_id = id)
            """;

    private static final String STATEMENT_CHECKPOINT = """
            SELECT checked_to FROM payment_statement_checkpoint WHERE provider = ?
            """;
    private static final String FIRST_CHECKPOINT = """
            INSERT INTO payment_statement_checkpoint (provider, checked_to) VALUES (?, ?)
            ON CONFLICT (provider) DO NOTHING
            """;
    /** Moves on only from where its pass started, and never back: of two passes at once, one moves it. */
    private static final String ADVANCE_CHECKPOINT = """
            UPDATE payment_statement_checkpoint SET checked_to = ?, updated_at = clock_timestamp()
            WHERE provider = ? AND checked_to = ? AND checked_to < ?
            """;

    private final JdbcTemplate jdbc;

    PaymentRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** A payment as recorded; {@code refundStatus} null while the money is kept. */
    public record Payment(
            UUID paymentId,
            UUID orderId,
            String provider,
            String providerTransactionId,
            BigDecimal amount,
            PaymentStatus status,
            RefundStatus refundStatus) {}

    /** A refund to drive through the channel. */
    public record Refund(UUID paymentId, UUID orderId, BigDecimal amount, UUID refundId, int attempts) {}

    public void recordAttempt(UUID paymentId, UUID orderId, String provider, BigDecimal amount) {
        jdbc.update(INSERT_ATTEMPT, paymentId, orderId, provider, amount);
    }

    public void attemptOpened(UUID paymentId, String providerTransactionId, String payUrl) {
        jdbc.update(UPDATE_ATTEMPT, providerTransactionId, payUrl, paymentId);
    }

    /** @return true when this call inserted the record (false: the payment or the channel transaction was known) */
    public boolean insertPayment(
            UUID paymentId,
            UUID orderId,
            String provider,
            String providerTransactionId,
            BigDecimal amount,
            Instant paidAt) {
        return jdbc.update(
                        INSERT_PAYMENT,
                        paymentId,
                        orderId,
                        provider,
                        providerTransactionId,
                        amount,
                        Timestamp.from(paidAt))
                == 1;
    }

    public Optional<Payment> payment(UUID paymentId) {
        return jdbc
                .query(
                        FIND_PAYMENT,
                        (rs, i) -> new Payment(
                                rs.getObject(1, UUID.class),
                                rs.getObject(2, UUID.class),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getBigDecimal(5),
                                PaymentStatus.valueOf(rs.getString(6)),
                                rs.getString(7) == null ? null : RefundStatus.valueOf(rs.getString(7))),
                        paymentId)
                .stream()
                .findFirst();
    }

    public boolean startRefund(UUID paymentId, UUID refundId) {
        return jdbc.update(START_REFUND, refundId, paymentId) == 1;
    }

    public List<Refund> claimRefunds(int limit, String owner, Duration lease) {
        return jdbc.query(
                CLAIM_REFUNDS,
                (rs, i) -> new Refund(
                        rs.getObject(1, UUID.class),
                        rs.getObject(2, UUID.class),
                        rs.getBigDecimal(3),
                        rs.getObject(4, UUID.class),
                        rs.getInt(5)),
                limit,
                owner,
                interval(lease));
    }

    public boolean markRefunded(UUID paymentId, String owner) {
        return jdbc.update(MARK_REFUNDED, paymentId, owner) == 1;
    }

    public boolean refundBackoff(UUID paymentId, String owner, Backoff backoff) {
        return jdbc.update(REFUND_BACKOFF, interval(backoff.base()), interval(backoff.max()), paymentId, owner) == 1;
    }

    /** Those of {@code paymentIds} that have no payment record. */
    public Set<UUID> unrecorded(List<UUID> paymentIds) {
        if (paymentIds.isEmpty()) {
            return Set.of();
        }
        return Set.copyOf(jdbc.queryForList(UNRECORDED, UUID.class, (Object) paymentIds.toArray(UUID[]::new)));
    }

    /** The end of the channel statement's last fully reconciled window, if any was. */
    public Optional<Instant> statementCheckpoint(String provider) {
        return jdbc.queryForList(STATEMENT_CHECKPOINT, Timestamp.class, provider).stream()
                .map(Timestamp::toInstant)
                .findFirst();
    }

    /**
     * Records that the statement is reconciled up to {@code to}, moving on from {@code from} (null: no
     * checkpoint yet). False when another pass moved it first.
     */
    public boolean advanceStatement(String provider, Instant from, Instant to) {
        if (from == null) {
            return jdbc.update(FIRST_CHECKPOINT, provider, Timestamp.from(to)) == 1;
        }
        return jdbc.update(ADVANCE_CHECKPOINT, Timestamp.from(to), provider, Timestamp.from(from), Timestamp.from(to))
                == 1;
    }

    /** Payment records of a sale by state: SUCCESS (kept), REFUNDING, REFUNDED. */
    public Map<String, Long> paymentCounts(long activityId) {
        return Sql.countsByKey(jdbc, PAYMENT_COUNTS, activityId);
    }

    public long unrefunded(long activityId) {
        return count(jdbc.queryForObject(UNREFUNDED, Long.class, activityId));
    }

    /** The reservations behind an id that may be a payment id (a UUID) or a channel transaction id. */
    public List<UUID> reservationsOf(String anyId, boolean uuid) {
        if (!uuid) {
            return jdbc.query(RESERVATION_OF_TRANSACTION, (rs, i) -> rs.getObject(1, UUID.class), anyId);
        }
        List<UUID> out = new java.util.ArrayList<>(
                jdbc.query(RESERVATION_OF_RECORD, (rs, i) -> rs.getObject(1, UUID.class), anyId, anyId));
        out.addAll(jdbc.query(RESERVATION_OF_ATTEMPT, (rs, i) -> rs.getObject(1, UUID.class), UUID.fromString(anyId)));
        return out;
    }

    /** The reservation's payment records as stored, for an operator's evidence. */
    public List<Map<String, Object>> recordsOfReservation(UUID reservationId) {
        return jdbc.queryForList(RECORDS_OF_RESERVATION, reservationId);
    }

    /** The reservation's payment attempts as stored, for an operator's evidence. */
    public List<Map<String, Object>> attemptsOfReservation(UUID reservationId) {
        return jdbc.queryForList(ATTEMPTS_OF_RESERVATION, reservationId);
    }
}
