package io.seckill.activity;

import java.util.List;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** The SQL of {@code inventory_ledger}: one row per stock movement, unique idempotency key. */
@Repository
public class LedgerRepository {

    private static final String OCCUPY = """
            INSERT INTO inventory_ledger (activity_id, sku_id, reservation_id, order_id, change_type,
                                          delta_available, delta_occupied, delta_sold, idempotency_key)
            SELECT a, s, r, o, 'OCCUPY', -1, 1, 0, 'OCCUPY:' || r::text
            FROM unnest(?::bigint[], ?::bigint[], ?::uuid[], ?::uuid[]) AS t(a, s, r, o)
            """;

    private final JdbcTemplate jdbc;

    LedgerRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public record Movement(long activityId, long skuId, UUID reservationId, UUID orderId) {
    }

    /** One OCCUPY row per order; a second row for the same reservation violates the unique key. */
    public void occupy(List<Movement> movements) {
        if (movements.isEmpty()) {
            return;
        }
        int n = movements.size();
        Long[] a = new Long[n], s = new Long[n];
        String[] r = new String[n], o = new String[n];
        for (int i = 0; i < n; i++) {
            Movement m = movements.get(i);
            a[i] = m.activityId();
            s[i] = m.skuId();
            r[i] = m.reservationId().toString();
            o[i] = m.orderId().toString();
        }
        jdbc.update(OCCUPY, a, s, r, o);
    }
}
