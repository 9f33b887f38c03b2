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

    private static final String ONE = """
            INSERT INTO inventory_ledger (activity_id, sku_id, reservation_id, order_id, change_type,
                                          delta_available, delta_occupied, delta_sold, idempotency_key)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """;

    private final JdbcTemplate jdbc;

    LedgerRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public record Movement(long activityId, long skuId, UUID reservationId, UUID orderId) {
    }

    /** The SELL row of a paid order: occupied - 1, sold + 1, key {@code SELL:<order>}. */
    public void sell(Movement m) {
        jdbc.update(ONE, m.activityId(), m.skuId(), m.reservationId(), m.orderId(), "SELL", 0, -1, 1, "SELL:" + m.orderId());
    }

    /**
     * The RELEASE row of a cancelled order: available + 1, occupied - 1, key {@code RELEASE:<order>}. A
     * second release of the same order violates the unique key and rolls its transaction back.
     */
    public void release(Movement m) {
        jdbc.update(ONE, m.activityId(), m.skuId(), m.reservationId(), m.orderId(), "RELEASE", 1, -1, 0,
                "RELEASE:" + m.orderId());
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
