package io.seckill.payment;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.anomaly.StalledWork;
import io.seckill.config.SeckillProperties;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.metrics.LogContext;
import io.seckill.order.OrderRecord;
import io.seckill.order.Orders;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.state.ObjectKind;
import io.seckill.state.OrderStatus;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Cancelling an unpaid order without ever cancelling a paid one (DESIGN.md §7.6, §9.9, §15.10).
 *
 * <ol>
 * <li>CAS {@code CREATED|PAYING -> CANCEL_PENDING} (expired, or the buyer asked), with an
 * ORDER_CANCEL_PENDING event in the same transaction.</li>
 * <li>Under a lease, OUTSIDE any transaction: close the payment at the channel. The channel's
 * answer decides: closed or never opened -> step 3; paid -> the payment is applied and the order
 * becomes PAID; no answer -> back off and ask again later (unknown is not unpaid).</li>
 * <li>One transaction, fenced by the lease owner: {@code CANCEL_PENDING -> CANCELLED} only if no
 * successful payment exists, PostgreSQL stock occupied -> available, reservation -> CANCELLED, a
 * RELEASE ledger row (unique key per order) and an ORDER_CANCELLED event.</li>
 * </ol>
 *
 * The timer is a scanner over {@code orders.expires_at} on the database clock, not RocketMQ delayed
 * messages: the broker's delay levels are coarse and fixed, a lost or duplicated delayed message
 * would need the same scan as a safety net anyway, and CANCEL_PENDING orders whose channel call
 * failed must be retried on a schedule of their own. A duplicate scan (two instances, a retried
 * pass) has no second effect: every step is a CAS and the release ledger key is unique.
 */
@Component
public record OrderCanceller(
        Orders orders,
        PaymentService paymentService,
        PaymentChannel channel,
        TransactionTemplate tx,
        MeterRegistry meters,
        SeckillProperties props,
        StalledWork stalled,
        Clock clock) {

    private static final Logger log = LoggerFactory.getLogger(OrderCanceller.class);

    /** Step 1 for expired orders, a batch at a time; returns how many entered CANCEL_PENDING. */
    public int markExpired(int limit) {
        List<OrderRecord> moved = tx.execute(s -> orders.expire(limit));
        if (!moved.isEmpty()) {
            meters.counter("order.cancel_pending", "reason", "payment_timeout").increment(moved.size());
            log.info("order.cancel_pending reason=PAYMENT_TIMEOUT count={}", moved.size());
            Failpoints.hit(Failpoint.AFTER_CANCEL_PENDING);
        }
        return moved.size();
    }

    /** Step 1 for a buyer's own unpaid order; empty when the order was not CREATED or PAYING. */
    public Optional<OrderRecord> markBuyerCancel(UUID orderId, long userId) {
        Optional<OrderRecord> moved = tx.execute(s -> orders.cancelByBuyer(orderId, userId));
        if (moved.isPresent()) {
            meters.counter("order.cancel_pending", "reason", "buyer_cancelled").increment();
            log.info("order.cancel_pending reason=BUYER_CANCELLED order_id={}", orderId);
            Failpoints.hit(Failpoint.AFTER_CANCEL_PENDING);
        }
        return moved;
    }

    /** Steps 2-3 for the due CANCEL_PENDING orders, as {@code owner}; returns how many were claimed. */
    public int resolvePending(String owner) {
        List<OrderRecord> claimed = orders.claimCancels(
                props.payment().batch(), owner, props.payment().lease());
        for (OrderRecord o : claimed) {
            try (LogContext ids = LogContext.of(
                    "order_id",
                    o.orderId(),
                    "reservation_id",
                    o.reservationId(),
                    "activity_id",
                    o.activityId(),
                    "sku_id",
                    o.skuId(),
                    "user_id",
                    o.userId())) {
                resolve(o, owner);
            } catch (RuntimeException e) {
                // one order that cannot be resolved does not hold up the others: backed off, counted, and past the
                // bound an anomaly; it stays CANCEL_PENDING (visible in the backlog gauges) and is asked again
                String error = e.getClass().getSimpleName() + ": " + e.getMessage();
                log.warn(
                        "order.cancel_failed order_id={} attempts={} error_class={}: {}",
                        o.orderId(),
                        o.cancelAttempts(),
                        e.getClass().getName(),
                        e.getMessage());
                orders.cancelBackoff(o.orderId(), owner, props.payment().backoff());
                meters.counter("order.cancel", "result", "failed").increment();
                stalled.failed(
                        "payment",
                        AnomalyKind.CANCEL_STALLED,
                        ObjectKind.ORDER,
                        o.orderId().toString(),
                        o.activityId(),
                        o.skuId(),
                        o.cancelAttempts(),
                        error,
                        Map.of("reservation_id", o.reservationId().toString()));
            }
        }
        return claimed.size();
    }

    /** Steps 2-3 for one order right now (the buyer's cancel), if no other worker holds it. */
    public CancelOutcome resolveNow(UUID orderId, String owner) {
        return orders.claimCancel(orderId, owner, props.payment().lease())
                .map(o -> resolve(o, owner))
                .orElse(CancelOutcome.NOOP);
    }

    /** Step 2 then 3 for a claimed order. */
    CancelOutcome resolve(OrderRecord o, String owner) {
        return decide(o, owner, closeAtChannel(o));
    }

    /** Step 2: close the order's payment at the channel; null when the channel did not answer. */
    PaymentChannel.State closeAtChannel(OrderRecord o) {
        try {
            return channel.close(PaymentService.paymentId(o.orderId()));
        } catch (PaymentChannel.ChannelUnavailable e) {
            log.warn("order.cancel_channel_unavailable order_id={}: {}", o.orderId(), e.getMessage());
            return null;
        }
    }

    /** Step 3: act on the channel's answer, as the lease owner. */
    CancelOutcome decide(OrderRecord o, String owner, PaymentChannel.State state) {
        if (state == null) {
            return unknown(o, owner, "channel unavailable");
        }
        UUID paymentId = PaymentService.paymentId(o.orderId());
        return switch (state.status()) {
            // money that came and was given back leaves the order unpaid: it is cancelled like a closed one
            case CLOSED, NOT_FOUND, REFUNDED -> finish(o, owner);
            case SUCCESS -> {
                paymentService.applyPaid(
                        channel.provider(),
                        paymentId,
                        o.orderId(),
                        state.providerTransactionId(),
                        state.amount(),
                        state.paidAt() == null ? clock.instant() : state.paidAt(),
                        "cancel_query");
                meters.counter("order.cancel", "result", "paid").increment();
                log.warn(
                        "order.cancel_found_paid order_id={} payment_id={} provider_transaction_id={}",
                        o.orderId(),
                        paymentId,
                        state.providerTransactionId());
                yield CancelOutcome.PAID;
            }
            case WAITING -> unknown(o, owner, "channel kept the payment open after close");
        };
    }

    private CancelOutcome unknown(OrderRecord o, String owner, String why) {
        orders.cancelBackoff(o.orderId(), owner, props.payment().backoff());
        meters.counter("order.cancel", "result", "unknown").increment();
        log.warn("order.cancel_unknown order_id={} attempts={} reason={}", o.orderId(), o.cancelAttempts(), why);
        stalled.failed(
                "payment",
                AnomalyKind.CANCEL_STALLED,
                ObjectKind.ORDER,
                o.orderId().toString(),
                o.activityId(),
                o.skuId(),
                o.cancelAttempts(),
                why,
                Map.of("reservation_id", o.reservationId().toString()));
        return CancelOutcome.UNKNOWN;
    }

    /** Step 3: the channel confirmed unpaid; one transaction, fenced by the lease. */
    CancelOutcome finish(OrderRecord o, String owner) {
        boolean cancelled = tx.execute(s -> orders.cancel(o, owner));
        if (cancelled) {
            meters.counter("order.cancel", "result", "cancelled").increment();
            log.info(
                    "order.cancelled order_id={} reservation_id={} activity_id={} sku_id={} reason={}",
                    o.orderId(),
                    o.reservationId(),
                    o.activityId(),
                    o.skuId(),
                    o.cancelReason());
            return CancelOutcome.CANCELLED;
        }
        OrderStatus now = orders.find(o.orderId()).map(OrderRecord::status).orElse(null);
        String seen = now == null ? "missing" : now.name().toLowerCase();
        meters.counter("order.cancel", "result", "refused_" + seen).increment();
        log.info(
                "order.cancel_refused order_id={} status={} (paid, already cancelled, or the lease moved on)",
                o.orderId(),
                seen);
        return now == OrderStatus.PAID ? CancelOutcome.PAID : CancelOutcome.NOOP;
    }
}
