package io.seckill.order;

import static io.seckill.db.Sql.count;
import static io.seckill.db.Sql.instant;
import static io.seckill.db.Sql.interval;

import io.seckill.db.Backlog;
import io.seckill.db.Sql;
import io.seckill.reservation.Judged;
import io.seckill.reservation.JudgedRows;
import io.seckill.retry.Backoff;
import io.seckill.state.OrderStatus;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code orders} and its state machine ({@link OrderStatus}). One order per (activity,
 * sku, user) is enforced by the unique constraint itself: the insert skips a user who already has
 * one. Every move is a guarded UPDATE whose WHERE clause is the rule and whose row count is the
 * answer; cancel work is leased (owner token on the database clock) and every later write of that
 * work checks the owner.
 */
@Repository
class OrderRepository {

    private static final String INSERT = """
            INSERT INTO orders (order_id, activity_id, sku_id, user_id, request_id, reservation_id, status, amount, expires_at)
            SELECT o, a, s, u, q, r, 'CREATED', p, clock_timestamp() + make_interval(secs => ttl)
            FROM unnest(?::uuid[], ?::bigint[], ?::bigint[], ?::bigint[], ?::uuid[], ?::uuid[], ?::numeric[], ?::int[])
                 AS t(o, a, s, u, q, r, p, ttl)
            ON CONFLICT (activity_id, sku_id, user_id) DO NOTHING
            RETURNING reservation_id, order_id
            """;
    private static final String ORDER_COLUMNS = """
            o.order_id, o.activity_id, o.sku_id, o.user_id, o.reservation_id, o.status, o.amount, o.expires_at,
            o.paid_at, o.cancelled_at, o.cancel_reason, o.cancel_attempts
            """;
    private static final String FIND = "SELECT " + ORDER_COLUMNS + " FROM orders o WHERE o.order_id = ?";
    private static final String FIND_BY_RESERVATION =
            "SELECT " + ORDER_COLUMNS + " FROM orders o WHERE o.order_id = order_id_of(?)";
    /** CREATED -> PAYING while the order has not expired. */
    private static final String START_PAYING = """
            UPDATE orders
            SET status = 'PAYING', version = version + 1, updated_at = clock_timestamp()
            WHERE order_id = ? AND status = 'CREATED' AND expires_at > clock_timestamp()
            """;
    /** A payment wins over CREATED, PAYING and CANCEL_PENDING. */
    private static final String MARK_PAID = """
            UPDATE orders
            SET status = 'PAID', paid_at = ?, version = version + 1, updated_at = clock_timestamp(),
                lease_owner = NULL, lease_until = NULL
            WHERE order_id = ? AND status IN ('CREATED', 'PAYING', 'CANCEL_PENDING')
            """;
    /**
     * Expired orders enter CANCEL_PENDING a batch at a time, without waiting on locked rows; an order
     * an operator holds is left alone.
     */
    static final String MARK_EXPIRED = Sql.claimBatch(
                    "orders",
                    "o",
                    "order_id",
                    """
            status IN ('CREATED', 'PAYING') AND expires_at %s
              AND NOT EXISTS (SELECT 1 FROM manual_hold h WHERE h.object_type = 'ORDER' AND h.object_id = order_id::text)""".formatted(Sql.DUE),
                    "expires_at",
                    """
            status = 'CANCEL_PENDING', cancel_reason = 'PAYMENT_TIMEOUT', cancel_next_at = clock_timestamp(),
                version = o.version + 1, updated_at = clock_timestamp()""",
                    "o.status IN ('CREATED', 'PAYING') AND o.expires_at <= clock_timestamp()")
            + "RETURNING " + ORDER_COLUMNS;
    /** The buyer gives up an unpaid order; no expiry condition. */
    private static final String MARK_BUYER_CANCEL = """
            UPDATE orders AS o
            SET status = 'CANCEL_PENDING', cancel_reason = 'BUYER_CANCELLED', cancel_next_at = clock_timestamp(),
                version = o.version + 1, updated_at = clock_timestamp()
            WHERE o.order_id = ? AND o.user_id = ? AND o.status IN ('CREATED', 'PAYING')
            RETURNING
            """ + ORDER_COLUMNS;

    private static final String CLAIM_CANCELS = Sql.claimBatch(
                    "orders",
                    "o",
                    "order_id",
                    """
            status = 'CANCEL_PENDING' AND cancel_next_at %s
              AND (lease_until IS NULL OR lease_until < clock_timestamp())
              AND NOT EXISTS (SELECT 1 FROM manual_hold h WHERE h.object_type = 'ORDER' AND h.object_id = order_id::text)""".formatted(Sql.DUE),
                    "cancel_next_at",
                    Sql.LEASE + ", cancel_attempts = o.cancel_attempts + 1",
                    "o.status = 'CANCEL_PENDING'")
            + "RETURNING " + ORDER_COLUMNS;
    private static final String CLAIM_CANCEL = """
            UPDATE orders AS o
            SET lease_owner = ?, lease_until = clock_timestamp() + ?::interval, cancel_attempts = o.cancel_attempts + 1
            WHERE o.order_id = ? AND o.status = 'CANCEL_PENDING'
              AND (o.lease_until IS NULL OR o.lease_until < clock_timestamp())
            RETURNING
            """ + ORDER_COLUMNS;
    /** The channel could not say: try again later, with capped exponential backoff; never cancel on an unknown. */
    private static final String CANCEL_BACKOFF = """
            UPDATE orders
            SET lease_owner = NULL, lease_until = NULL, cancel_next_at = clock_timestamp() +
            """ + Backoff.SQL_DELAY.formatted("cancel_attempts") + """
            WHERE order_id = ? AND status = 'CANCEL_PENDING' AND lease_owner = ?
            """;
    /** The final cancel, fenced by the canceller's lease; never over money kept. */
    private static final String MARK_CANCELLED = """
            UPDATE orders
            SET status = 'CANCELLED', cancelled_at = clock_timestamp(), version = version + 1,
                updated_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL
            WHERE order_id = ?
              AND status = 'CANCEL_PENDING'
              AND lease_owner = ?
              AND NOT EXISTS (SELECT 1 FROM payment_record p WHERE p.order_id = orders.order_id AND p.status = 'SUCCESS')
            """;

    private static final String CANCEL_BACKLOG = """
            SELECT count(*), coalesce(extract(epoch FROM clock_timestamp() - min(updated_at)), 0)
            FROM orders WHERE status = 'CANCEL_PENDING'
            """;
    private static final String STATUS_COUNTS = """
            SELECT status, count(*) FROM orders WHERE activity_id = ? GROUP BY status
            """;
    private static final String RESERVATION_OF = "SELECT reservation_id FROM orders WHERE order_id = ?";
    private static final String ROWS_OF_RESERVATION = "SELECT * FROM orders WHERE order_id = order_id_of(?)";

    /**
     * The change window of one SKU's orders: those that changed (paid, cancelled) after the cursor
     * and before the watermark, with their reservation and task (index idx_orders_sku_changed).
     */
    private static final String CHANGED = "SELECT " + JudgedRows.COLUMNS + ", o.updated_at, o.order_id\n" + """
            FROM orders o
            JOIN inventory_reservation r ON r.reservation_id = o.reservation_id
            LEFT JOIN compensation_task t ON t.reservation_id = r.reservation_id
            WHERE o.activity_id = ? AND o.sku_id = ? AND (o.updated_at, o.order_id) > (?, ?)
              AND o.updated_at < clock_timestamp() - ?::interval
              AND r.updated_at < clock_timestamp() - ?::interval
            """
            + JudgedRows.NOT_HELD_OR_IN_FLIGHT + """
            ORDER BY o.updated_at, o.order_id
            LIMIT ?
            """;

    private static final String DUPLICATE_USERS = """
            SELECT count(*) FROM (SELECT 1 FROM orders WHERE activity_id = ?
                                  GROUP BY activity_id, sku_id, user_id HAVING count(*) > 1) d
            """;
    private static final String DUPLICATE_RESERVATIONS = """
            SELECT count(*) FROM (SELECT 1 FROM orders WHERE activity_id = ?
                                  GROUP BY reservation_id HAVING count(*) > 1) d
            """;
    /** One SKU's orders: all, live (not cancelled), paid, cancelled. */
    private static final String SKU_COUNTS = """
            SELECT count(*), count(*) FILTER (WHERE status <> 'CANCELLED'), count(*) FILTER (WHERE status = 'PAID'),
                   count(*) FILTER (WHERE status = 'CANCELLED')
            FROM orders WHERE activity_id = ? AND sku_id = ?
            """;

    private final JdbcTemplate jdbc;

    OrderRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    record NewOrder(
            UUID orderId,
            long activityId,
            long skuId,
            long userId,
            UUID requestId,
            UUID reservationId,
            BigDecimal amount,
            int paymentTimeoutSeconds) {}

    /** @return reservation id -> order id for the orders actually inserted */
    Map<UUID, UUID> insert(List<NewOrder> orders) {
        int n = orders.size();
        String[] o = new String[n], q = new String[n], r = new String[n], p = new String[n];
        Long[] a = new Long[n], s = new Long[n], u = new Long[n];
        Integer[] ttl = new Integer[n];
        for (int i = 0; i < n; i++) {
            NewOrder x = orders.get(i);
            o[i] = x.orderId().toString();
            a[i] = x.activityId();
            s[i] = x.skuId();
            u[i] = x.userId();
            q[i] = x.requestId().toString();
            r[i] = x.reservationId().toString();
            p[i] = x.amount().toPlainString();
            ttl[i] = x.paymentTimeoutSeconds();
        }
        Map<UUID, UUID> inserted = new HashMap<>();
        jdbc.query(
                INSERT,
                rs -> {
                    inserted.put(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class));
                },
                o,
                a,
                s,
                u,
                q,
                r,
                p,
                ttl);
        return inserted;
    }

    Optional<OrderRecord> find(UUID orderId) {
        return jdbc.query(FIND, OrderRepository::orderRow, orderId).stream().findFirst();
    }

    Optional<OrderRecord> ofReservation(UUID reservationId) {
        return jdbc.query(FIND_BY_RESERVATION, OrderRepository::orderRow, reservationId).stream()
                .findFirst();
    }

    boolean startPaying(UUID orderId) {
        return jdbc.update(START_PAYING, orderId) == 1;
    }

    boolean markPaid(UUID orderId, Instant paidAt) {
        return jdbc.update(MARK_PAID, Timestamp.from(paidAt), orderId) == 1;
    }

    List<OrderRecord> markExpired(int limit) {
        return jdbc.query(MARK_EXPIRED, OrderRepository::orderRow, limit);
    }

    Optional<OrderRecord> markBuyerCancel(UUID orderId, long userId) {
        return jdbc.query(MARK_BUYER_CANCEL, OrderRepository::orderRow, orderId, userId).stream()
                .findFirst();
    }

    List<OrderRecord> claimCancels(int limit, String owner, Duration lease) {
        return jdbc.query(CLAIM_CANCELS, OrderRepository::orderRow, limit, owner, interval(lease));
    }

    Optional<OrderRecord> claimCancel(UUID orderId, String owner, Duration lease) {
        return jdbc.query(CLAIM_CANCEL, OrderRepository::orderRow, owner, interval(lease), orderId).stream()
                .findFirst();
    }

    boolean cancelBackoff(UUID orderId, String owner, Backoff backoff) {
        return jdbc.update(CANCEL_BACKOFF, interval(backoff.base()), interval(backoff.max()), orderId, owner) == 1;
    }

    boolean markCancelled(UUID orderId, String owner) {
        return jdbc.update(MARK_CANCELLED, orderId, owner) == 1;
    }

    Backlog cancelBacklog() {
        return jdbc.queryForObject(CANCEL_BACKLOG, Backlog::of);
    }

    Map<String, Long> countByStatus(long activityId) {
        return Sql.countsByKey(jdbc, STATUS_COUNTS, activityId);
    }

    Optional<UUID> reservationOf(UUID orderId) {
        return jdbc.query(RESERVATION_OF, (rs, i) -> rs.getObject(1, UUID.class), orderId).stream()
                .findFirst();
    }

    /** The reservation's order row as stored, for an operator's evidence. */
    List<Map<String, Object>> rowsOfReservation(UUID reservationId) {
        return jdbc.queryForList(ROWS_OF_RESERVATION, reservationId);
    }

    /** Orders of the SKU changed after {@code after} and older than the watermark, with their reservations. */
    Judged.Page changed(long activityId, long skuId, Judged.Cursor after, Duration watermark, int limit) {
        return JudgedRows.page(jdbc, CHANGED, activityId, skuId, after, watermark, limit);
    }

    long duplicateUsers(long activityId) {
        return count(jdbc.queryForObject(DUPLICATE_USERS, Long.class, activityId));
    }

    long duplicateReservations(long activityId) {
        return count(jdbc.queryForObject(DUPLICATE_RESERVATIONS, Long.class, activityId));
    }

    Orders.SkuCounts skuCounts(long activityId, long skuId) {
        return jdbc.queryForObject(
                SKU_COUNTS,
                (rs, i) -> new Orders.SkuCounts(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)),
                activityId,
                skuId);
    }

    private static OrderRecord orderRow(ResultSet rs, int i) throws SQLException {
        return new OrderRecord(
                rs.getObject(1, UUID.class),
                rs.getLong(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getObject(5, UUID.class),
                OrderStatus.valueOf(rs.getString(6)),
                rs.getBigDecimal(7),
                instant(rs.getTimestamp(8)),
                instant(rs.getTimestamp(9)),
                instant(rs.getTimestamp(10)),
                rs.getString(11),
                rs.getInt(12));
    }
}
