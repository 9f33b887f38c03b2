package io.seckill.invariants;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import io.seckill.activity.ActivityService;
import io.seckill.activity.SkuInventory;

/**
 * The guarantees of SPEC section 1 as checks (design 11.6 step 6, 13.4): no oversell, one order
 * per user, PostgreSQL and Redis conservation, and - once the pipeline is quiet - Redis committed
 * equal to PostgreSQL occupied + sold.
 */
@Component
public class InvariantChecker {

    private static final String DUPLICATE_USERS = """
            SELECT count(*) FROM (SELECT 1 FROM orders WHERE activity_id = ?
                                  GROUP BY activity_id, sku_id, user_id HAVING count(*) > 1) d
            """;
    private static final String DUPLICATE_RESERVATIONS = """
            SELECT count(*) FROM (SELECT 1 FROM orders WHERE activity_id = ?
                                  GROUP BY reservation_id HAVING count(*) > 1) d
            """;
    private static final String LIVE_ORDERS = """
            SELECT count(*) FROM orders WHERE activity_id = ? AND sku_id = ? AND status <> 'CANCELLED'
            """;
    private static final String OCCUPY_LEDGER = """
            SELECT count(*) FROM inventory_ledger WHERE activity_id = ? AND sku_id = ? AND change_type = 'OCCUPY'
            """;
    private static final String NOT_TERMINAL = """
            SELECT count(*) FROM inventory_reservation
            WHERE reservation_id = ANY (?::uuid[])
              AND status IN ('ORDER_CREATED', 'CANCELLED', 'COMPENSATED', 'MANUAL_REVIEW')
            """;

    private final JdbcTemplate jdbc;
    private final ActivityService activities;

    InvariantChecker(JdbcTemplate jdbc, ActivityService activities) {
        this.jdbc = jdbc;
        this.activities = activities;
    }

    public record Check(String name, boolean pass, String detail) {
    }

    /** Every invariant of the sale; {@code quiet} adds the cross-system equation (only meaningful after drain). */
    public List<Check> check(long activityId, boolean quiet) {
        List<Check> out = new ArrayList<>();
        long dupUsers = count(DUPLICATE_USERS, activityId);
        out.add(new Check("one order per user", dupUsers == 0, dupUsers + " (activity, sku, user) with more than one order"));
        long dupRes = count(DUPLICATE_RESERVATIONS, activityId);
        out.add(new Check("one order per reservation", dupRes == 0, dupRes + " reservations with more than one order"));
        for (ActivityService.InventoryView v : activities.inventoryView(activityId)) {
            SkuInventory pg = v.pg();
            String sku = "sku " + pg.skuId();
            long live = count(LIVE_ORDERS, activityId, pg.skuId());
            out.add(new Check(sku + ": no oversell", live <= pg.initial() && pg.available() >= 0,
                    live + " live orders for " + pg.initial() + " units"));
            out.add(new Check(sku + ": PG initial = available + occupied + sold", pg.invariantDelta() == 0,
                    pg.initial() + " = " + pg.available() + " + " + pg.occupied() + " + " + pg.sold()));
            long ledger = count(OCCUPY_LEDGER, activityId, pg.skuId());
            out.add(new Check(sku + ": one OCCUPY ledger row per order", ledger == live,
                    ledger + " ledger rows, " + live + " live orders"));
            ActivityService.RedisCounters r = v.redis();
            out.add(new Check(sku + ": Redis initial = stock + open_reserved + committed", r.invariantDelta() == 0,
                    r.initial() + " = " + r.stock() + " + " + r.openReserved() + " + " + r.committed()));
            if (quiet) {
                out.add(new Check(sku + ": Redis committed = PG occupied + sold", v.crossSystemDelta() == 0,
                        r.committed() + " = " + pg.occupied() + " + " + pg.sold()));
            }
        }
        return out;
    }

    /** How many of these reservation ids have reached a terminal state in PostgreSQL. */
    public long terminal(Collection<String> reservationIds) {
        Long n = jdbc.queryForObject(NOT_TERMINAL, Long.class, (Object) reservationIds.toArray(String[]::new));
        return n == null ? 0 : n;
    }

    private long count(String sql, Object... args) {
        Long n = jdbc.queryForObject(sql, Long.class, args);
        return n == null ? 0 : n;
    }
}
