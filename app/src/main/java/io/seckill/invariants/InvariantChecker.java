package io.seckill.invariants;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

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
    /** Orders by state beside the ledger rows of each kind, for one SKU. */
    private static final String SKU_BOOKS = """
            SELECT (SELECT count(*) FROM orders WHERE activity_id = ? AND sku_id = ?),
                   (SELECT count(*) FROM orders WHERE activity_id = ? AND sku_id = ? AND status = 'PAID'),
                   (SELECT count(*) FROM orders WHERE activity_id = ? AND sku_id = ? AND status = 'CANCELLED'),
                   (SELECT count(*) FILTER (WHERE change_type = 'OCCUPY') FROM inventory_ledger WHERE activity_id = ? AND sku_id = ?),
                   (SELECT count(*) FILTER (WHERE change_type = 'SELL') FROM inventory_ledger WHERE activity_id = ? AND sku_id = ?),
                   (SELECT count(*) FILTER (WHERE change_type = 'RELEASE') FROM inventory_ledger WHERE activity_id = ? AND sku_id = ?)
            """;
    /** Money kept for an order that is not PAID: it must be on its way back (design 7.6). */
    private static final String UNREFUNDED = """
            SELECT count(*) FROM payment_record p JOIN orders o ON o.order_id = p.order_id
            WHERE o.activity_id = ? AND p.status = 'SUCCESS' AND o.status <> 'PAID' AND p.refund_status IS NULL
            """;
    private static final String NOT_TERMINAL = """
            SELECT count(*) FROM inventory_reservation
            WHERE reservation_id = ANY (?::uuid[])
              AND status IN ('ORDER_CREATED', 'CANCELLED', 'COMPENSATED', 'MANUAL_REVIEW')
            """;

    private final JdbcTemplate jdbc;
    private final ActivityService activities;
    private final TransactionTemplate snapshot;

    InvariantChecker(JdbcTemplate jdbc, ActivityService activities, PlatformTransactionManager tm) {
        this.jdbc = jdbc;
        this.activities = activities;
        // every PostgreSQL number of one check comes from one snapshot, even while orders are being written
        this.snapshot = new TransactionTemplate(tm);
        this.snapshot.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
        this.snapshot.setReadOnly(true);
    }

    public record Check(String name, boolean pass, String detail) {
    }

    /** Every invariant of the sale; {@code quiet} adds the cross-system equation (only meaningful after drain). */
    public List<Check> check(long activityId, boolean quiet) {
        return snapshot.execute(s -> checkInSnapshot(activityId, quiet));
    }

    private List<Check> checkInSnapshot(long activityId, boolean quiet) {
        List<Check> out = new ArrayList<>();
        long dupUsers = count(DUPLICATE_USERS, activityId);
        out.add(new Check("one order per user", dupUsers == 0, dupUsers + " (activity, sku, user) with more than one order"));
        long dupRes = count(DUPLICATE_RESERVATIONS, activityId);
        out.add(new Check("one order per reservation", dupRes == 0, dupRes + " reservations with more than one order"));
        long unrefunded = count(UNREFUNDED, activityId);
        out.add(new Check("paid is never cancelled silently", unrefunded == 0,
                unrefunded + " payments kept for orders that are not PAID, with no refund"));
        for (ActivityService.InventoryView v : activities.inventoryView(activityId)) {
            SkuInventory pg = v.pg();
            String sku = "sku " + pg.skuId();
            long live = count(LIVE_ORDERS, activityId, pg.skuId());
            out.add(new Check(sku + ": no oversell", live <= pg.initial() && pg.available() >= 0,
                    live + " live orders for " + pg.initial() + " units"));
            out.add(new Check(sku + ": PG initial = available + occupied + sold", pg.invariantDelta() == 0,
                    pg.initial() + " = " + pg.available() + " + " + pg.occupied() + " + " + pg.sold()));
            long[] b = books(activityId, pg.skuId());
            long orders = b[0], paid = b[1], cancelled = b[2];
            out.add(new Check(sku + ": ledger OCCUPY/SELL/RELEASE = orders/paid/cancelled",
                    b[3] == orders && b[4] == paid && b[5] == cancelled,
                    b[3] + "/" + b[4] + "/" + b[5] + " ledger rows for " + orders + "/" + paid + "/" + cancelled + " orders"));
            out.add(new Check(sku + ": PG sold = paid orders, occupied = unpaid live orders",
                    pg.sold() == paid && pg.occupied() == orders - paid - cancelled,
                    "sold " + pg.sold() + " vs " + paid + " paid; occupied " + pg.occupied() + " vs "
                            + (orders - paid - cancelled) + " unpaid"));
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

    private long[] books(long activityId, long skuId) {
        return jdbc.queryForObject(SKU_BOOKS, (rs, i) -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4),
                rs.getLong(5), rs.getLong(6)}, activityId, skuId, activityId, skuId, activityId, skuId, activityId, skuId,
                activityId, skuId, activityId, skuId);
    }

    private long count(String sql, Object... args) {
        Long n = jdbc.queryForObject(sql, Long.class, args);
        return n == null ? 0 : n;
    }
}
