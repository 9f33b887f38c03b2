package io.seckill.order;

import io.seckill.activity.Stock;
import io.seckill.db.Backlog;
import io.seckill.outbox.Outbox;
import io.seckill.outbox.OutboxEvent;
import io.seckill.reservation.Judged;
import io.seckill.reservation.Reservations;
import io.seckill.retry.Backoff;
import io.seckill.state.OrderStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;

/**
 * The order feature's face: an order's life after the consumer created it (DESIGN.md §7.6, §9.9) and the reads other
 * features make of {@code orders}. Each move of the lifecycle is one guarded UPDATE and carries its effects with it -
 * the unit sold or released with its ledger row, the reservation cancelled, the order's event in the outbox - so a
 * caller cannot move the order without them. The moves write inside the caller's transaction (the payment joins its
 * payment record to the same one); the caller decides what happens outside it (the channel, metrics, anomalies).
 */
@Service
public class Orders {

    /** One SKU's orders by kind, for the books an invariant check compares. */
    public record SkuCounts(long all, long live, long paid, long cancelled) {}

    private final OrderRepository orders;
    private final Stock stock;
    private final Reservations reservations;
    private final Outbox outbox;

    Orders(OrderRepository orders, Stock stock, Reservations reservations, Outbox outbox) {
        this.orders = orders;
        this.stock = stock;
        this.reservations = reservations;
        this.outbox = outbox;
    }

    // the lifecycle

    /** CREATED -> PAYING (the buyer opened a payment); false when the order is in any other state. */
    public boolean startPaying(UUID orderId) {
        return orders.startPaying(orderId);
    }

    /**
     * Unpaid -> PAID with its unit sold (a SELL ledger row) and an ORDER_PAID event; false, with nothing written, when
     * the guarded update refused (already paid, cancelled). Throws when the SKU has no occupied unit for it.
     */
    public boolean pay(OrderRecord order, Instant paidAt) {
        if (!orders.markPaid(order.orderId(), paidAt)) {
            return false;
        }
        stock.sell(movement(order));
        outbox.append("ORDER", OutboxEvent.ORDER_PAID, List.of(event(OutboxEvent.ORDER_PAID, order, OrderStatus.PAID)));
        return true;
    }

    /** Orders past their payment deadline, up to {@code limit}: -> CANCEL_PENDING with their events. */
    public List<OrderRecord> expire(int limit) {
        List<OrderRecord> expired = orders.markExpired(limit);
        outbox.append(
                "ORDER",
                OutboxEvent.ORDER_CANCEL_PENDING,
                expired.stream().map(Orders::pending).toList());
        return expired;
    }

    /** A buyer's own unpaid order -> CANCEL_PENDING with its event; empty when it was not CREATED or PAYING. */
    public Optional<OrderRecord> cancelByBuyer(UUID orderId, long userId) {
        Optional<OrderRecord> moved = orders.markBuyerCancel(orderId, userId);
        moved.ifPresent(o -> outbox.append("ORDER", OutboxEvent.ORDER_CANCEL_PENDING, List.of(pending(o))));
        return moved;
    }

    /** The due CANCEL_PENDING orders, leased to {@code owner}. */
    public List<OrderRecord> claimCancels(int limit, String owner, Duration lease) {
        return orders.claimCancels(limit, owner, lease);
    }

    /** One CANCEL_PENDING order leased to {@code owner}; empty when another holds it or it is not pending. */
    public Optional<OrderRecord> claimCancel(UUID orderId, String owner, Duration lease) {
        return orders.claimCancel(orderId, owner, lease);
    }

    /** The owner gives up the order for now: asked again after the backoff; false when the lease moved on. */
    public boolean cancelBackoff(UUID orderId, String owner, Backoff backoff) {
        return orders.cancelBackoff(orderId, owner, backoff);
    }

    /**
     * CANCEL_PENDING -> CANCELLED as the lease owner, only if no successful payment exists: the unit goes back to
     * available (a RELEASE ledger row), the reservation is cancelled, an ORDER_CANCELLED event is written. False, with
     * nothing written, when the guarded update refused (paid, already cancelled, the lease moved on); throws when the
     * unit or the reservation is not where the order says.
     */
    public boolean cancel(OrderRecord o, String owner) {
        if (!orders.markCancelled(o.orderId(), owner)) {
            return false;
        }
        stock.release(movement(o));
        if (!reservations.markCancelled(o.reservationId())) {
            throw new IllegalStateException(
                    "reservation " + o.reservationId() + " of order " + o.orderId() + " is not ORDER_CREATED");
        }
        outbox.append(
                "ORDER",
                OutboxEvent.ORDER_CANCELLED,
                List.of(event(OutboxEvent.ORDER_CANCELLED, o, OrderStatus.CANCELLED)));
        return true;
    }

    // reads

    public Optional<OrderRecord> find(UUID orderId) {
        return orders.find(orderId);
    }

    public Optional<OrderRecord> ofReservation(UUID reservationId) {
        return orders.ofReservation(reservationId);
    }

    public Optional<UUID> reservationOf(UUID orderId) {
        return orders.reservationOf(orderId);
    }

    /** The reservation's order row as stored, for an operator's evidence. */
    public List<Map<String, Object>> rowsOfReservation(UUID reservationId) {
        return orders.rowsOfReservation(reservationId);
    }

    /** A sale's orders counted by status. */
    public Map<String, Long> countByStatus(long activityId) {
        return orders.countByStatus(activityId);
    }

    /** CANCEL_PENDING orders: how many and the oldest's age. */
    public Backlog cancelBacklog() {
        return orders.cancelBacklog();
    }

    /** Orders of the SKU changed after {@code after} and older than the watermark, judged with their reservations. */
    public Judged.Page changed(long activityId, long skuId, Judged.Cursor after, Duration watermark, int limit) {
        return orders.changed(activityId, skuId, after, watermark, limit);
    }

    /** Users of the sale with more than one order (an invariant: zero). */
    public long duplicateUsers(long activityId) {
        return orders.duplicateUsers(activityId);
    }

    /** Reservations of the sale with more than one order (an invariant: zero). */
    public long duplicateReservations(long activityId) {
        return orders.duplicateReservations(activityId);
    }

    public SkuCounts skuCounts(long activityId, long skuId) {
        return orders.skuCounts(activityId, skuId);
    }

    private static Stock.Movement movement(OrderRecord o) {
        return new Stock.Movement(o.activityId(), o.skuId(), o.reservationId(), o.orderId());
    }

    private static OutboxEvent pending(OrderRecord o) {
        return event(OutboxEvent.ORDER_CANCEL_PENDING, o, OrderStatus.CANCEL_PENDING);
    }

    private static OutboxEvent event(String type, OrderRecord o, OrderStatus status) {
        return OutboxEvent.orderStatus(
                type, o.orderId(), o.reservationId(), o.activityId(), o.skuId(), o.userId(), status);
    }
}
