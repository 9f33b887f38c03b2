package io.seckill.reservation;

import io.seckill.db.Sql;
import io.seckill.state.OrderStatus;
import io.seckill.state.ReservationStatus;
import io.seckill.state.TaskStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * How a {@link Judged} is read, shared by the two repositories whose change windows reconciliation pages through
 * (the reservations' here, the orders' in the order feature): the columns, the filter that leaves out what is not
 * reconciliation's to judge yet, and the page the rows make.
 */
public final class JudgedRows {

    private JudgedRows() {}

    /**
     * What reconciliation judges a reservation by (aliases r = reservation, o = its order, t = its
     * compensation task): the columns {@link #page} reads, in order.
     */
    public static final String COLUMNS = """
            r.reservation_id, r.user_id, r.status, r.version, r.order_id, o.status, t.task_id, t.status,
                   (t.lease_until IS NOT NULL AND t.lease_until < clock_timestamp()), r.request_id, r.message_id""";
    /**
     * Reconciliation's change window skips what is not its to judge yet: a reservation or order under
     * a person's hold, or one with an event still in the outbox. Aliases r (reservation) and o (order).
     */
    public static final String NOT_HELD_OR_IN_FLIGHT = """
              AND NOT EXISTS (SELECT 1 FROM manual_hold h WHERE h.object_id = r.reservation_id::text)
              AND NOT EXISTS (SELECT 1 FROM manual_hold h WHERE h.object_id = o.order_id::text)
              AND NOT EXISTS (SELECT 1 FROM event_outbox e
                              WHERE e.aggregate_id = r.reservation_id AND e.status IN ('PENDING', 'RETRY', 'SENDING'))
              AND NOT EXISTS (SELECT 1 FROM event_outbox e
                              WHERE e.aggregate_id = o.order_id AND e.status IN ('PENDING', 'RETRY', 'SENDING'))
            """;
    /**
     * Runs a change-window statement: its first eleven columns are a {@link Judged}, the last two the
     * (changed_at, id) of the row's cursor; parameters are activity, sku, cursor, watermark twice, limit.
     */
    public static Judged.Page page(
            JdbcTemplate jdbc,
            String sql,
            long activityId,
            long skuId,
            Judged.Cursor after,
            Duration watermark,
            int limit) {
        String w = Sql.interval(watermark);
        List<Judged> rows = new ArrayList<>();
        Judged.Cursor[] last = {after};
        jdbc.query(
                sql,
                rs -> {
                    rows.add(judged(rs));
                    last[0] = new Judged.Cursor(rs.getTimestamp(12).toInstant(), rs.getObject(13, UUID.class));
                },
                activityId,
                skuId,
                Timestamp.from(after.changedAt()),
                after.id(),
                w,
                w,
                limit);
        return new Judged.Page(rows, last[0]);
    }

    public static Judged judged(ResultSet rs) throws SQLException {
        return new Judged(
                rs.getObject(1, UUID.class),
                rs.getLong(2),
                ReservationStatus.valueOf(rs.getString(3)),
                rs.getLong(4),
                rs.getObject(5, UUID.class),
                status(OrderStatus.class, rs.getString(6)),
                rs.getObject(7, UUID.class),
                status(TaskStatus.class, rs.getString(8)),
                rs.getBoolean(9),
                rs.getObject(10, UUID.class),
                rs.getObject(11, UUID.class));
    }

    private static <E extends Enum<E>> E status(Class<E> type, String value) {
        return value == null ? null : Enum.valueOf(type, value);
    }
}
