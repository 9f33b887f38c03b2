package io.seckill.activity;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;

/**
 * The activity feature's face for PostgreSQL stock (DESIGN.md §6.5, §9.3): the counters of {@code sku_inventory}
 * move only through guarded UPDATEs, and every unit that moves for an order leaves its row in
 * {@code inventory_ledger} under a unique key. A sale or a release moves the counter and writes the row together;
 * the order consumer moves a batch's counters first and writes their rows once the orders have ids. Both tables are
 * reached only here and in this package.
 */
@Service
public class Stock {

    /** A unit moving for an order: which SKU, and the reservation and order it moves for. */
    public record Movement(long activityId, long skuId, UUID reservationId, UUID orderId) {}

    /** One SKU's OCCUPY, SELL and RELEASE ledger rows. */
    public record LedgerCounts(long occupy, long sell, long release) {}

    private final InventoryRepository inventory;
    private final LedgerRepository ledger;

    Stock(InventoryRepository inventory, LedgerRepository ledger) {
        this.inventory = inventory;
        this.ledger = ledger;
    }

    /** Takes {@code n} available units of a SKU as occupied; false (nothing moved) unless all {@code n} are there. */
    public boolean occupy(long activityId, long skuId, int n) {
        return inventory.occupy(activityId, skuId, n);
    }

    /** Gives back {@code n} units occupied earlier in the same transaction; false when fewer are occupied. */
    public boolean restore(long activityId, long skuId, int n) {
        return inventory.restore(activityId, skuId, n);
    }

    /** The OCCUPY rows of units already occupied, one per order; a second row for a reservation is refused. */
    public void recordOccupied(List<Movement> movements) {
        ledger.occupy(movements);
    }

    /**
     * A paid order's unit: occupied -> sold with its SELL row. Throws when the SKU has no occupied unit (the order's
     * unit is missing: the transaction must not commit).
     */
    public void sell(Movement m) {
        if (!inventory.sell(m.activityId(), m.skuId())) {
            throw new IllegalStateException("sku " + m.activityId() + "/" + m.skuId()
                    + " has no occupied unit to sell for order " + m.orderId());
        }
        ledger.sell(m);
    }

    /**
     * A cancelled order's unit: occupied -> available with its RELEASE row (a second release of the same order
     * violates the row's unique key). Throws when the SKU has no occupied unit.
     */
    public void release(Movement m) {
        if (!inventory.release(m.activityId(), m.skuId())) {
            throw new IllegalStateException(
                    "sku " + m.activityId() + "/" + m.skuId() + " has no occupied unit to release for " + m.orderId());
        }
        ledger.release(m);
    }

    /** Every SKU of a sale as PostgreSQL holds it. */
    public List<SkuInventory> ofActivity(long activityId) {
        return inventory.forActivity(activityId);
    }

    /** One SKU's ledger rows by type (the invariants' evidence). */
    public LedgerCounts ledgerCounts(long activityId, long skuId) {
        return ledger.skuCounts(activityId, skuId);
    }

    /** A sale's ledger rows counted by change type (the close-out's report). */
    public Map<String, Long> ledgerCountByType(long activityId) {
        return ledger.countByType(activityId);
    }

    /** A reservation's ledger rows as stored, for an operator's evidence. */
    public List<Map<String, Object>> ledgerOf(UUID reservationId) {
        return ledger.ofReservation(reservationId);
    }
}
