package io.seckill.invariants;

import io.seckill.activity.ActivityService;
import io.seckill.activity.SkuInventory;
import io.seckill.activity.Stock;
import io.seckill.order.Orders;
import io.seckill.payment.Payments;
import io.seckill.reservation.Reservations;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The guarantees (DESIGN.md, Guarantees) as checks (§11.6 step 6, §13.4): no oversell, one order
 * per user, PostgreSQL and Redis conservation, and - once the pipeline is quiet - Redis committed
 * equal to PostgreSQL occupied + sold.
 */
@Component
public record InvariantChecker(
        Orders orders,
        Stock stock,
        Payments payments,
        Reservations reservations,
        ActivityService activities,
        TransactionTemplate snapshot) {

    @Autowired
    InvariantChecker(
            Orders orders,
            Stock stock,
            Payments payments,
            Reservations reservations,
            ActivityService activities,
            PlatformTransactionManager tm) {
        this(orders, stock, payments, reservations, activities, snapshotOf(tm));
    }

    /** Every PostgreSQL number of one check comes from one snapshot, even while orders are being written. */
    private static TransactionTemplate snapshotOf(PlatformTransactionManager tm) {
        TransactionTemplate t = new TransactionTemplate(tm);
        t.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
        t.setReadOnly(true);
        return t;
    }

    public record Check(String name, boolean pass, String detail) {}

    /** One sale's checks and whether all of them passed. */
    public record SaleChecks(long activityId, boolean pass, List<Check> checks) {

        public static SaleChecks of(long activityId, List<Check> checks) {
            return new SaleChecks(activityId, checks.stream().allMatch(Check::pass), checks);
        }
    }

    /** Every invariant of the sale; {@code quiet} adds the cross-system equation (only meaningful after drain). */
    public List<Check> check(long activityId, boolean quiet) {
        return snapshot.execute(s -> checkInSnapshot(activityId, quiet));
    }

    private List<Check> checkInSnapshot(long activityId, boolean quiet) {
        List<Check> out = new ArrayList<>();
        long dupUsers = orders.duplicateUsers(activityId);
        out.add(new Check(
                "one order per user", dupUsers == 0, dupUsers + " (activity, sku, user) with more than one order"));
        long dupRes = orders.duplicateReservations(activityId);
        out.add(new Check("one order per reservation", dupRes == 0, dupRes + " reservations with more than one order"));
        long unrefunded = payments.unrefunded(activityId);
        out.add(new Check(
                "paid is never cancelled silently",
                unrefunded == 0,
                unrefunded + " payments kept for orders that are not PAID, with no refund"));
        for (ActivityService.InventoryView v : activities.inventoryView(activityId)) {
            SkuInventory pg = v.pg();
            String sku = "sku " + pg.skuId();
            Orders.SkuCounts o = orders.skuCounts(activityId, pg.skuId());
            Stock.LedgerCounts l = stock.ledgerCounts(activityId, pg.skuId());
            long live = o.live();
            out.add(new Check(
                    sku + ": no oversell",
                    live <= pg.initial() && pg.available() >= 0,
                    live + " live orders for " + pg.initial() + " units"));
            out.add(new Check(
                    sku + ": PG initial = available + occupied + sold",
                    pg.invariantDelta() == 0,
                    pg.initial() + " = " + pg.available() + " + " + pg.occupied() + " + " + pg.sold()));
            long all = o.all(), paid = o.paid(), cancelled = o.cancelled();
            out.add(new Check(
                    sku + ": ledger OCCUPY/SELL/RELEASE = orders/paid/cancelled",
                    l.occupy() == all && l.sell() == paid && l.release() == cancelled,
                    l.occupy() + "/" + l.sell() + "/" + l.release() + " ledger rows for " + all + "/" + paid + "/"
                            + cancelled + " orders"));
            out.add(new Check(
                    sku + ": PG sold = paid orders, occupied = unpaid live orders",
                    pg.sold() == paid && pg.occupied() == all - paid - cancelled,
                    "sold " + pg.sold() + " vs " + paid + " paid; occupied " + pg.occupied() + " vs "
                            + (all - paid - cancelled) + " unpaid"));
            ActivityService.RedisCounters r = v.redis();
            out.add(new Check(
                    sku + ": Redis initial = stock + open_reserved + committed",
                    r.invariantDelta() == 0,
                    r.initial() + " = " + r.stock() + " + " + r.openReserved() + " + " + r.committed()
                            + (r.inTransit() == 0 ? "" : "; " + r.inTransit() + " more in transit between buckets")));
            if (quiet) {
                out.add(new Check(
                        sku + ": Redis committed = PG occupied + sold",
                        v.crossSystemDelta() == 0,
                        r.committed() + " = " + pg.occupied() + " + " + pg.sold()));
                if (r.warmedBuckets() > 0) {
                    out.add(new Check(
                            sku + ": Redis initial over every bucket + in transit = PG initial",
                            v.supplyDelta() == 0,
                            r.initial() + " + " + r.inTransit() + " = " + pg.initial()));
                }
            }
        }
        return out;
    }

    /** How many of these reservation ids have reached a state the buyer sees as final in PostgreSQL. */
    public long terminal(Collection<String> reservationIds) {
        return reservations.settled(reservationIds);
    }
}
