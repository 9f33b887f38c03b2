package io.seckill.reservation;

import io.seckill.db.Sql;
import io.seckill.state.OrderStatus;
import io.seckill.state.ReservationStatus;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** The SQL of {@code inventory_reservation}: the durable reservation state machine ({@link ReservationStatus}). */
@Repository
class ReservationRepository {

    /**
     * A reservation PostgreSQL had not seen, written directly in the state this transaction decided
     * (one write instead of insert-then-update). A concurrent writer of the same id (a deadline
     * tombstone) makes this fail on the primary key, never overwrites it.
     */
    private static final String INSERT_SETTLED = """
            INSERT INTO inventory_reservation (reservation_id, request_id, activity_id, sku_id, user_id, message_id,
                                               order_id, status, reason_code, version, reserved_at, business_deadline)
            SELECT r, q, a, s, u, m, o, ?, ?, 1, ra, bd
            FROM unnest(?::uuid[], ?::uuid[], ?::bigint[], ?::bigint[], ?::bigint[], ?::uuid[], ?::uuid[],
                        ?::timestamptz[], ?::timestamptz[]) AS t(r, q, a, s, u, m, o, ra, bd)
            """;
    /** A durable rejection for a reservation PostgreSQL may never have seen (DESIGN.md §11.2 tombstone). */
    private static final String INSERT_TOMBSTONE = """
            INSERT INTO inventory_reservation (reservation_id, request_id, activity_id, sku_id, user_id, message_id,
                                               status, reason_code, version, reserved_at, business_deadline)
            VALUES (?, ?, ?, ?, ?, ?, 'ORDER_REJECTED', ?, 1, ?::timestamptz, ?::timestamptz)
            ON CONFLICT DO NOTHING
            """;
    /**
     * The reservation PostgreSQL holds for the same request (activity, SKU, user, request id) or message under
     * another reservation id: what a tombstone's insert met (an id-key rotation and a lost Redis hash can make a
     * second reservation of one request).
     */
    private static final String SAME_REQUEST = """
            SELECT reservation_id, status FROM inventory_reservation
            WHERE (activity_id = ? AND sku_id = ? AND user_id = ? AND request_id = ?) OR message_id = ?
            LIMIT 1
            """;

    private static final String STATES = """
            SELECT reservation_id, status FROM inventory_reservation WHERE reservation_id = ANY (?::uuid[])
            """;
    /** Locks the rows that exist, in a fixed order (no deadlock between batches), and returns their state. */
    private static final String LOCK = """
            SELECT reservation_id, status, order_id, message_id
            FROM inventory_reservation
            WHERE reservation_id = ANY (?::uuid[])
            ORDER BY reservation_id
            FOR UPDATE
            """;
    /** The ids as {@code = ANY} too: the batch's keys are looked up whatever the statistics say (see InboxRepository). */
    private static final String MARK_ORDER_CREATED = """
            UPDATE inventory_reservation r
            SET status = 'ORDER_CREATED', order_id = t.o, version = r.version + 1, updated_at = clock_timestamp()
            FROM unnest(?::uuid[], ?::uuid[]) AS t(r, o)
            WHERE r.reservation_id = ANY (?::uuid[]) AND r.reservation_id = t.r AND r.status = 'RESERVED'
            """;

    private static final String MARK_REJECTED = """
            UPDATE inventory_reservation r
            SET status = 'ORDER_REJECTED', reason_code = ?, version = r.version + 1, updated_at = clock_timestamp()
            WHERE r.reservation_id = ANY (?::uuid[]) AND r.status = 'RESERVED'
            """;
    /** DESIGN.md §9.7: the durable decision to compensate; only a rejected reservation may enter it. */
    private static final String MARK_COMPENSATING = """
            UPDATE inventory_reservation
            SET status = 'COMPENSATING', version = version + 1, updated_at = clock_timestamp()
            WHERE reservation_id = ? AND status = 'ORDER_REJECTED'
            """;

    private static final String MARK_COMPENSATED = """
            UPDATE inventory_reservation
            SET status = 'COMPENSATED', version = version + 1, updated_at = clock_timestamp()
            WHERE reservation_id = ? AND status = 'COMPENSATING'
            """;
    /**
     * DESIGN.md, States: a reservation automation has given up on leaves the transient states for a person
     * (frozen, with an anomaly beside it). Only the states that must otherwise progress are taken.
     */
    private static final String MARK_MANUAL_REVIEW = """
            UPDATE inventory_reservation
            SET status = 'MANUAL_REVIEW', version = version + 1, updated_at = clock_timestamp()
            WHERE reservation_id = ? AND status IN ('ORDER_REJECTED', 'COMPENSATING')
            """;
    /** The reservation follows its cancelled order (DESIGN.md, States: ORDER_CREATED -> CANCELLED). */
    private static final String MARK_CANCELLED = """
            UPDATE inventory_reservation
            SET status = 'CANCELLED', version = version + 1, updated_at = clock_timestamp()
            WHERE reservation_id = ? AND status = 'ORDER_CREATED'
            """;

    private static final String FIND_TARGET = """
            SELECT reservation_id, activity_id, sku_id, user_id, status FROM inventory_reservation WHERE reservation_id = ?
            """;
    private static final String FIND = """
            SELECT reservation_id, request_id, message_id, activity_id, sku_id, user_id, status, version, order_id
            FROM inventory_reservation WHERE reservation_id = ?
            """;
    private static final String FIND_VIEW = """
            SELECT r.reservation_id, r.user_id, r.status, r.reason_code, r.order_id, o.status AS order_status
            FROM inventory_reservation r
            LEFT JOIN orders o ON o.order_id = r.order_id
            WHERE r.reservation_id = ?
            """;
    /** An operator takes the reservation out of automation (the states automation would otherwise move on). */
    private static final String FREEZE = """
            UPDATE inventory_reservation SET status = 'MANUAL_REVIEW', version = version + 1, updated_at = clock_timestamp()
            WHERE reservation_id = ? AND status IN ('RESERVED', 'ORDER_REJECTED', 'COMPENSATING')
            """;
    /** Back to the state it was frozen in. */
    private static final String UNFREEZE = """
            UPDATE inventory_reservation SET status = ?, version = version + 1, updated_at = clock_timestamp()
            WHERE reservation_id = ? AND status = 'MANUAL_REVIEW' AND ? IN ('RESERVED', 'ORDER_REJECTED', 'COMPENSATING')
            """;
    /**
     * Any business id of the reservation itself -> the reservation, every comparison on an indexed uuid
     * column: an order id through the order's own reservation_id (the reservation's order_id carries no
     * index, so the order transaction does not maintain one more).
     */
    private static final String RESOLVE = """
            SELECT reservation_id FROM inventory_reservation
            WHERE reservation_id = ? OR request_id = ? OR message_id = ?
               OR reservation_id = (SELECT o.reservation_id FROM orders o WHERE o.order_id = ?)
            LIMIT 2
            """;

    private static final String ROW = "SELECT * FROM inventory_reservation WHERE reservation_id = ?";
    /**
     * The change window of one SKU: reservations whose row changed after the cursor (updated_at, id)
     * and before the watermark, in change order (index idx_inventory_reservation_sku_changed), with
     * their order and task; objects under a hold or with an event still in the outbox wait.
     */
    private static final String CHANGED = "SELECT " + JudgedRows.COLUMNS + ", r.updated_at, r.reservation_id\n" + """
            FROM inventory_reservation r
            LEFT JOIN orders o ON o.order_id = r.order_id
            LEFT JOIN compensation_task t ON t.reservation_id = r.reservation_id
            WHERE r.activity_id = ? AND r.sku_id = ? AND (r.updated_at, r.reservation_id) > (?, ?)
              AND r.updated_at < clock_timestamp() - ?::interval
              AND (o.updated_at IS NULL OR o.updated_at < clock_timestamp() - ?::interval)
            """
            + JudgedRows.NOT_HELD_OR_IN_FLIGHT + """
            ORDER BY r.updated_at, r.reservation_id
            LIMIT ?
            """;
    /** Every reservation PostgreSQL decided for a SKU, with what Redis must know of it (held ones excepted). */
    private static final String OF_SKU = "SELECT " + JudgedRows.COLUMNS + "\n" + """
            FROM inventory_reservation r
            LEFT JOIN orders o ON o.order_id = r.order_id
            LEFT JOIN compensation_task t ON t.reservation_id = r.reservation_id
            WHERE r.activity_id = ? AND r.sku_id = ?
            """;

    private static final String KNOWN = OF_SKU + """
              AND NOT EXISTS (SELECT 1 FROM manual_hold h WHERE h.object_id = r.reservation_id::text)
            """;
    private static final String IN_REVIEW = OF_SKU + """
              AND r.status = 'MANUAL_REVIEW'
            """;
    private static final String DECIDED = """
            SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> 'RESERVED'
            """;
    private static final String SETTLED = """
            SELECT count(*) FROM inventory_reservation
            WHERE reservation_id = ANY (?::uuid[])
              AND status IN ('ORDER_CREATED', 'CANCELLED', 'COMPENSATED', 'MANUAL_REVIEW')
            """;
    private static final String COUNT_BY_STATUS = """
            SELECT status, count(*) FROM inventory_reservation WHERE activity_id = ? GROUP BY status
            """;

    private final JdbcTemplate jdbc;

    ReservationRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    record View(
            UUID reservationId,
            long userId,
            ReservationStatus status,
            String reasonCode,
            UUID orderId,
            OrderStatus orderStatus) {}

    /** Inserts rows for reservations PostgreSQL has not seen, in their decided state; order ids may be null. */
    void insertSettled(
            List<OrderCreateRequested> msgs, ReservationStatus status, String reason, Map<UUID, UUID> orderIds) {
        if (msgs.isEmpty()) {
            return;
        }
        int n = msgs.size();
        String[] r = new String[n], q = new String[n], m = new String[n], o = new String[n];
        Long[] a = new Long[n], s = new Long[n], u = new Long[n];
        String[] ra = new String[n], bd = new String[n];
        for (int i = 0; i < n; i++) {
            OrderCreateRequested x = msgs.get(i);
            r[i] = x.reservationId().toString();
            q[i] = x.requestId().toString();
            m[i] = x.messageId().toString();
            UUID order = orderIds.get(x.reservationId());
            o[i] = order == null ? null : order.toString();
            a[i] = x.activityId();
            s[i] = x.skuId();
            u[i] = x.userId();
            ra[i] = x.reservedAt(); // ISO-8601 instants, checked when the message was read
            bd[i] = x.businessDeadline();
        }
        jdbc.update(INSERT_SETTLED, status.name(), reason, r, q, a, s, u, m, o, ra, bd);
    }

    /** @return true when this call wrote the tombstone (false: PostgreSQL already had the reservation) */
    boolean insertTombstone(OrderCreateRequested x, String reason) {
        return jdbc.update(
                        INSERT_TOMBSTONE,
                        x.reservationId(),
                        x.requestId(),
                        x.activityId(),
                        x.skuId(),
                        x.userId(),
                        x.messageId(),
                        reason,
                        x.reservedAt(),
                        x.businessDeadline())
                == 1;
    }

    /** The reservation PostgreSQL holds for {@code x}'s request or message under another id, with its status. */
    Optional<Map.Entry<UUID, ReservationStatus>> sameRequest(OrderCreateRequested x) {
        return jdbc
                .query(
                        SAME_REQUEST,
                        (rs, i) -> Map.entry(rs.getObject(1, UUID.class), ReservationStatus.valueOf(rs.getString(2))),
                        x.activityId(),
                        x.skuId(),
                        x.userId(),
                        x.requestId(),
                        x.messageId())
                .stream()
                .filter(e -> !e.getKey().equals(x.reservationId()))
                .findFirst();
    }

    Map<UUID, ReservationStatus> states(List<UUID> reservationIds) {
        Map<UUID, ReservationStatus> out = new java.util.HashMap<>();
        jdbc.query(
                STATES,
                rs -> {
                    out.put(rs.getObject(1, UUID.class), ReservationStatus.valueOf(rs.getString(2)));
                },
                (Object) Sql.uuids(reservationIds));
        return out;
    }

    List<Reservations.Row> lock(List<UUID> reservationIds) {
        return jdbc.query(
                LOCK,
                (rs, i) -> new Reservations.Row(
                        rs.getObject(1, UUID.class),
                        ReservationStatus.valueOf(rs.getString(2)),
                        rs.getObject(3, UUID.class),
                        rs.getObject(4, UUID.class)),
                (Object) Sql.uuids(reservationIds));
    }

    /** RESERVED -> ORDER_CREATED for each pair; returns how many moved. */
    int markOrderCreated(Map<UUID, UUID> orderByReservation) {
        String[] r = new String[orderByReservation.size()];
        String[] o = new String[r.length];
        int i = 0;
        for (var e : orderByReservation.entrySet()) {
            r[i] = e.getKey().toString();
            o[i++] = e.getValue().toString();
        }
        return jdbc.update(MARK_ORDER_CREATED, r, o, r);
    }

    /** RESERVED -> ORDER_REJECTED with a reason; returns how many moved. */
    int markRejected(List<UUID> reservationIds, String reason) {
        return jdbc.update(MARK_REJECTED, reason, Sql.uuids(reservationIds));
    }

    Optional<Reservations.Reservation> find(UUID reservationId) {
        return jdbc
                .query(
                        FIND,
                        (rs, i) -> new Reservations.Reservation(
                                rs.getObject(1, UUID.class),
                                rs.getObject(2, UUID.class),
                                rs.getObject(3, UUID.class),
                                rs.getLong(4),
                                rs.getLong(5),
                                rs.getLong(6),
                                ReservationStatus.valueOf(rs.getString(7)),
                                rs.getLong(8),
                                rs.getObject(9, UUID.class)),
                        reservationId)
                .stream()
                .findFirst();
    }

    Optional<Reservations.Target> target(UUID reservationId) {
        return jdbc
                .query(
                        FIND_TARGET,
                        (rs, i) -> new Reservations.Target(
                                rs.getObject(1, UUID.class),
                                rs.getLong(2),
                                rs.getLong(3),
                                rs.getLong(4),
                                ReservationStatus.valueOf(rs.getString(5))),
                        reservationId)
                .stream()
                .findFirst();
    }

    /** ORDER_REJECTED -> COMPENSATING; false when the reservation is in any other state. */
    boolean markCompensating(UUID reservationId) {
        return single(jdbc.update(MARK_COMPENSATING, reservationId), reservationId);
    }

    /** COMPENSATING -> COMPENSATED; false when the reservation is in any other state. */
    boolean markCompensated(UUID reservationId) {
        return single(jdbc.update(MARK_COMPENSATED, reservationId), reservationId);
    }

    /** ORDER_REJECTED | COMPENSATING -> MANUAL_REVIEW; false when the reservation is in any other state. */
    boolean markManualReview(UUID reservationId) {
        return single(jdbc.update(MARK_MANUAL_REVIEW, reservationId), reservationId);
    }

    boolean markCancelled(UUID reservationId) {
        return single(jdbc.update(MARK_CANCELLED, reservationId), reservationId);
    }

    private static boolean single(int rows, UUID reservationId) {
        if (rows > 1) {
            throw new IllegalStateException("reservation " + reservationId + " update touched " + rows + " rows");
        }
        return rows == 1;
    }

    Optional<View> view(UUID reservationId) {
        return jdbc
                .query(
                        FIND_VIEW,
                        (rs, i) -> new View(
                                rs.getObject(1, UUID.class),
                                rs.getLong(2),
                                ReservationStatus.valueOf(rs.getString(3)),
                                rs.getString(4),
                                rs.getObject(5, UUID.class),
                                rs.getString(6) == null ? null : OrderStatus.valueOf(rs.getString(6))),
                        reservationId)
                .stream()
                .findFirst();
    }

    Map<String, Long> countByStatus(long activityId) {
        return Sql.countsByKey(jdbc, COUNT_BY_STATUS, activityId);
    }

    boolean freeze(UUID reservationId) {
        return single(jdbc.update(FREEZE, reservationId), reservationId);
    }

    /** MANUAL_REVIEW -> {@code previous} when that is a state a freeze takes. */
    boolean unfreeze(UUID reservationId, ReservationStatus previous) {
        return single(jdbc.update(UNFREEZE, previous.name(), reservationId, previous.name()), reservationId);
    }

    /** The reservations whose own id, request, message or order id is {@code id}. */
    List<UUID> reservationsOf(UUID id) {
        return jdbc.query(RESOLVE, (rs, i) -> rs.getObject(1, UUID.class), id, id, id, id);
    }

    /** The row as stored, for an operator's evidence. */
    List<Map<String, Object>> rows(UUID reservationId) {
        return jdbc.queryForList(ROW, reservationId);
    }

    /** Reservations of the SKU changed after {@code after} and older than the watermark. */
    Judged.Page changed(long activityId, long skuId, Judged.Cursor after, Duration watermark, int limit) {
        return JudgedRows.page(jdbc, CHANGED, activityId, skuId, after, watermark, limit);
    }

    List<Judged> known(long activityId, long skuId) {
        return jdbc.query(KNOWN, (rs, i) -> JudgedRows.judged(rs), activityId, skuId);
    }

    /** Every reservation of the SKU with its order and task, held ones too: what a recalibration counts. */
    List<Judged> ofSku(long activityId, long skuId) {
        return jdbc.query(OF_SKU, (rs, i) -> JudgedRows.judged(rs), activityId, skuId);
    }

    /** The ids of every reservation of the SKU PostgreSQL holds, whatever their state. */
    List<UUID> idsOfSku(long activityId, long skuId) {
        return jdbc.queryForList(
                "SELECT reservation_id FROM inventory_reservation WHERE activity_id = ? AND sku_id = ?",
                UUID.class,
                activityId,
                skuId);
    }

    /** The SKU's reservations taken out of automation (MANUAL_REVIEW): only a person moves them on. */
    List<Judged> inReview(long activityId, long skuId) {
        return jdbc.query(IN_REVIEW, (rs, i) -> JudgedRows.judged(rs), activityId, skuId);
    }

    /** Reservations of the sale PostgreSQL has decided (any state but RESERVED). */
    long decided(long activityId) {
        return Sql.count(jdbc.queryForObject(DECIDED, Long.class, activityId));
    }

    /** How many of these reservations reached a state the buyer sees as final. */
    long settled(Collection<String> reservationIds) {
        return Sql.count(jdbc.queryForObject(SETTLED, Long.class, (Object) reservationIds.toArray(String[]::new)));
    }
}
