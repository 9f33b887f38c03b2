package io.seckill.activity;

import io.seckill.db.Sql;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** The SQL of {@code inventory_ledger}: one row per stock movement, unique idempotency key. */
@Repository
class LedgerRepository {

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

    /** A stock adjustment's row: initial and available move together, nothing else. */
    private static final String ADJUST = """
            INSERT INTO inventory_ledger (activity_id, sku_id, change_type, delta_available, delta_occupied, delta_sold,
                                          idempotency_key)
            VALUES (?, ?, 'ADJUST', ?, 0, 0, ?)
            """;

    /**
     * A reservation's rows by their keys (the primary key; the ledger has no index by reservation): its order's
     * OCCUPY ({@code OCCUPY:<reservation>}), SELL and RELEASE ({@code SELL:<order>}, {@code RELEASE:<order>}, the
     * order's id derived from the reservation's).
     */
    static final String OF_RESERVATION = """
            SELECT * FROM inventory_ledger
            WHERE idempotency_key IN ('OCCUPY:' || ?::uuid, 'SELL:' || order_id_of(?::uuid), 'RELEASE:' || order_id_of(?::uuid))
            ORDER BY ledger_id
            """;

    private static final String BY_TYPE = """
            SELECT change_type, count(*) FROM inventory_ledger WHERE activity_id = ? GROUP BY 1 ORDER BY 1
            """;
    /** One SKU's OCCUPY, SELL and RELEASE rows. */
    private static final String SKU_COUNTS = """
            SELECT count(*) FILTER (WHERE change_type = 'OCCUPY'), count(*) FILTER (WHERE change_type = 'SELL'),
                   count(*) FILTER (WHERE change_type = 'RELEASE')
            FROM inventory_ledger WHERE activity_id = ? AND sku_id = ?
            """;

    private final JdbcTemplate jdbc;

    LedgerRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** The ADJUST row of a stock adjustment, key {@code ADJUST:<adjustment>}. */
    void adjust(UUID adjustmentId, long activityId, long skuId, int delta) {
        jdbc.update(ADJUST, activityId, skuId, delta, "ADJUST:" + adjustmentId);
    }

    /** The reservation's ledger rows as stored, for an operator's evidence. */
    List<Map<String, Object>> ofReservation(UUID reservationId) {
        return jdbc.queryForList(OF_RESERVATION, reservationId, reservationId, reservationId);
    }

    Map<String, Long> countByType(long activityId) {
        return Sql.countsByKey(jdbc, BY_TYPE, activityId);
    }

    Stock.LedgerCounts skuCounts(long activityId, long skuId) {
        return jdbc.queryForObject(
                SKU_COUNTS,
                (rs, i) -> new Stock.LedgerCounts(rs.getLong(1), rs.getLong(2), rs.getLong(3)),
                activityId,
                skuId);
    }

    /** The SELL row of a paid order: occupied - 1, sold + 1, key {@code SELL:<order>}. */
    void sell(Stock.Movement m) {
        jdbc.update(
                ONE,
                m.activityId(),
                m.skuId(),
                m.reservationId(),
                m.orderId(),
                "SELL",
                0,
                -1,
                1,
                "SELL:" + m.orderId());
    }

    /**
     * The RELEASE row of a cancelled order: available + 1, occupied - 1, key {@code RELEASE:<order>}. A
     * second release of the same order violates the unique key and rolls its transaction back.
     */
    void release(Stock.Movement m) {
        jdbc.update(
                ONE,
                m.activityId(),
                m.skuId(),
                m.reservationId(),
                m.orderId(),
                "RELEASE",
                1,
                -1,
                0,
                "RELEASE:" + m.orderId());
    }

    /** One OCCUPY row per order; a second row for the same reservation violates the unique key. */
    void occupy(List<Stock.Movement> movements) {
        if (movements.isEmpty()) {
            return;
        }
        int n = movements.size();
        Long[] a = new Long[n], s = new Long[n];
        String[] r = new String[n], o = new String[n];
        for (int i = 0; i < n; i++) {
            Stock.Movement m = movements.get(i);
            a[i] = m.activityId();
            s[i] = m.skuId();
            r[i] = m.reservationId().toString();
            o[i] = m.orderId().toString();
        }
        jdbc.update(OCCUPY, a, s, r, o);
    }
}
