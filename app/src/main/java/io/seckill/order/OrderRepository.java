package io.seckill.order;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code orders}. One order per (activity, sku, user) is enforced by the unique
 * constraint itself: the insert skips a user who already has one (design 9.3).
 */
@Repository
public class OrderRepository {

    private static final String INSERT = """
            INSERT INTO orders (order_id, activity_id, sku_id, user_id, request_id, reservation_id, status, amount, expires_at)
            SELECT o, a, s, u, q, r, 'CREATED', p, clock_timestamp() + make_interval(secs => ttl)
            FROM unnest(?::uuid[], ?::bigint[], ?::bigint[], ?::bigint[], ?::uuid[], ?::uuid[], ?::numeric[], ?::int[])
                 AS t(o, a, s, u, q, r, p, ttl)
            ON CONFLICT (activity_id, sku_id, user_id) DO NOTHING
            RETURNING reservation_id, order_id
            """;
    private static final String STATUS_COUNTS = """
            SELECT status, count(*) FROM orders WHERE activity_id = ? GROUP BY status
            """;

    private final JdbcTemplate jdbc;

    OrderRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    record NewOrder(UUID orderId, long activityId, long skuId, long userId, UUID requestId, UUID reservationId,
            BigDecimal amount, int paymentTimeoutSeconds) {
    }

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
        jdbc.query(INSERT, rs -> {
            inserted.put(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class));
        }, o, a, s, u, q, r, p, ttl);
        return inserted;
    }

    public Map<String, Long> countByStatus(long activityId) {
        Map<String, Long> out = new java.util.TreeMap<>();
        jdbc.query(STATUS_COUNTS, rs -> {
            out.put(rs.getString(1), rs.getLong(2));
        }, activityId);
        return out;
    }
}
