package io.seckill.payment;

import io.seckill.db.DbBreaker;
import io.seckill.mq.MqClients;
import io.seckill.order.OrderRecord;
import io.seckill.order.Orders;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.refusal.Refusal;
import io.seckill.state.OrderStatus;
import java.math.BigDecimal;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * The buyer's two moves on an order: open its payment at the channel (CREATED -> PAYING, once; a
 * repeat opens the same payment) and give it up (CREATED | PAYING -> CANCEL_PENDING, then resolved
 * at once if no worker holds it). Channel calls happen outside any database transaction; every step
 * can be repeated.
 */
@Service
public class Checkout {

    private static final Logger log = LoggerFactory.getLogger(Checkout.class);

    /** A payment opened at the channel. */
    public record Opened(
            UUID orderId,
            UUID paymentId,
            String provider,
            String providerTransactionId,
            String payUrl,
            BigDecimal amount,
            PaymentChannel.Status channelStatus) {}

    private final Orders orders;
    private final PaymentRepository payments;
    private final PaymentChannel channel;
    private final OrderCanceller canceller;
    private final DbBreaker dbCalls;
    private final String owner = MqClients.instanceName("buyer-cancel");

    Checkout(
            Orders orders,
            PaymentRepository payments,
            PaymentChannel channel,
            OrderCanceller canceller,
            DbBreaker dbCalls) {
        this.orders = orders;
        this.payments = payments;
        this.channel = channel;
        this.canceller = canceller;
        this.dbCalls = dbCalls;
    }

    /**
     * The buyer's own order, or 404 (another buyer's order is as unknown as a missing one); refused at
     * once while PostgreSQL does not answer ({@link DbBreaker}), which the web layer answers 503.
     */
    public OrderRecord owned(long userId, UUID orderId) {
        return dbCalls.call(() -> orders.find(orderId))
                .filter(o -> o.userId() == userId)
                .orElseThrow(() -> Refusal.notFound("ORDER_NOT_FOUND", "no order " + orderId + " for this user"));
    }

    public Opened open(OrderRecord o, String notifyUrl) {
        switch (o.status()) {
            case PAID -> throw Refusal.conflict("ORDER_ALREADY_PAID", "order " + o.orderId() + " is paid");
            case CANCEL_PENDING, CANCELLED -> throw cancelled(o);
            case CREATED -> {
                if (!orders.startPaying(o.orderId())) {
                    OrderRecord now = orders.find(o.orderId()).orElseThrow();
                    if (now.status() != OrderStatus.PAYING) {
                        throw now.status() == OrderStatus.CREATED
                                ? Refusal.conflict(
                                        "ORDER_EXPIRED",
                                        "the payment time of order " + o.orderId() + " ran out at " + o.expiresAt())
                                : cancelled(now);
                    }
                }
            }
            case PAYING -> {
                // the same payment again
            }
        }
        UUID paymentId = PaymentService.paymentId(o.orderId());
        payments.recordAttempt(paymentId, o.orderId(), channel.provider(), o.amount());
        PaymentChannel.Created created;
        try {
            created = channel.create(paymentId, o.orderId(), o.amount(), notifyUrl);
        } catch (PaymentChannel.ChannelUnavailable e) {
            log.warn("payment.create_failed order_id={} payment_id={}: {}", o.orderId(), paymentId, e.getMessage());
            throw new Refusal(
                    Refusal.Kind.UPSTREAM_FAILED,
                    "PAYMENT_CHANNEL_UNAVAILABLE",
                    "the payment channel did not answer; try again");
        }
        if (created.status() == PaymentChannel.Status.CLOSED) {
            throw Refusal.conflict("ORDER_CANCELLED", "order " + o.orderId() + " is being cancelled");
        }
        payments.attemptOpened(paymentId, created.providerTransactionId(), created.payUrl());
        return new Opened(
                o.orderId(),
                paymentId,
                channel.provider(),
                created.providerTransactionId(),
                created.payUrl(),
                o.amount(),
                created.status());
    }

    /** The buyer gives the order up; returns it as it stands after the attempt. */
    public OrderRecord cancel(OrderRecord o) {
        if (o.status() == OrderStatus.PAID) {
            throw Refusal.conflict("ORDER_ALREADY_PAID", "order " + o.orderId() + " is paid; ask for a refund");
        }
        if (o.status().unpaid()) {
            canceller.markBuyerCancel(o.orderId(), o.userId());
        }
        canceller.resolveNow(o.orderId(), owner);
        OrderRecord now = orders.find(o.orderId()).orElseThrow();
        if (now.status() == OrderStatus.PAID) {
            throw Refusal.conflict("ORDER_ALREADY_PAID", "order " + o.orderId() + " was paid");
        }
        return now;
    }

    private static Refusal cancelled(OrderRecord o) {
        return Refusal.conflict("ORDER_CANCELLED", "order " + o.orderId() + " is " + o.status());
    }
}
