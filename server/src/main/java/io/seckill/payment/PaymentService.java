package io.seckill.payment;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.metrics.LogContext;
import io.seckill.order.OrderRecord;
import io.seckill.order.Orders;
import io.seckill.refusal.Refusal;
import io.seckill.reservation.ReservationIds;
import io.seckill.state.ObjectKind;
import io.seckill.state.RefundStatus;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A successful payment, whoever reports it (the channel's callback, or the channel's answer to the
 * canceller), takes effect once (DESIGN.md §9.9): the payment record is inserted idempotently, the
 * order moves to PAID by the guarded UPDATE, and in the same transaction PostgreSQL stock moves
 * occupied -> sold with a ledger row and an ORDER_PAID outbox event. When the UPDATE finds the
 * order already CANCELLED, the money was taken after the local cancel: the payment is recorded,
 * an anomaly raised and a refund started - the order never flips back to PAID.
 */
@Service
public record PaymentService(
        PaymentRepository payments, Orders orders, Anomalies anomalies, TransactionTemplate tx, MeterRegistry meters) {

    private static final Logger log = LoggerFactory.getLogger(PaymentService.class);

    private static final String DUPLICATE_PAYMENT = "DUPLICATE_PAYMENT";
    private static final String PAID_AFTER_CANCEL = "PAID_AFTER_CANCEL";

    public PaymentService {
        // registered at start: an alert on their increase sees zero series, not absent ones
        for (String type : List.of(DUPLICATE_PAYMENT, PAID_AFTER_CANCEL)) {
            meters.counter("payment.cancel_race_detected", "type", type);
        }
        callbackToPaid(meters);
    }

    /** The one payment id of an order: a repeated "pay" or a repeated callback can never invent a second. */
    public static UUID paymentId(UUID orderId) {
        return ReservationIds.derived("PAYMENT", orderId);
    }

    public static UUID refundId(UUID paymentId) {
        return ReservationIds.derived("REFUND", paymentId);
    }

    /**
     * Applies a successful payment reported by {@code source}. Checks come first and write nothing:
     * unknown order (404), a payment id that is not this order's, or an amount that differs (400).
     */
    public PaymentOutcome applyPaid(
            String provider,
            UUID paymentId,
            UUID orderId,
            String providerTransactionId,
            BigDecimal amount,
            Instant paidAt,
            String source) {
        OrderRecord order = orders.find(orderId)
                .orElseThrow(() -> refused(
                        "unknown_order",
                        orderId,
                        paymentId,
                        Refusal.notFound("ORDER_NOT_FOUND", "no order " + orderId, "order_id")));
        if (!paymentId(orderId).equals(paymentId)) {
            throw refused(
                    "payment_id_mismatch",
                    orderId,
                    paymentId,
                    Refusal.invalid("payment_id", "is not the payment of order " + orderId));
        }
        if (amount.compareTo(order.amount()) != 0) {
            throw refused(
                    "amount_mismatch",
                    orderId,
                    paymentId,
                    new Refusal(
                            Refusal.Kind.INVALID,
                            "AMOUNT_MISMATCH",
                            "amount " + amount.toPlainString() + " differs from the order amount "
                                    + order.amount().toPlainString(),
                            "amount",
                            null));
        }
        try (LogContext ids = LogContext.of(
                "payment_id",
                paymentId,
                "order_id",
                orderId,
                "reservation_id",
                order.reservationId(),
                "activity_id",
                order.activityId(),
                "sku_id",
                order.skuId(),
                "user_id",
                order.userId())) {
            long start = System.nanoTime();
            PaymentOutcome outcome =
                    applyChecked(provider, paymentId, orderId, order, providerTransactionId, amount, paidAt, source);
            if (outcome == PaymentOutcome.PAID && "callback".equals(source)) {
                callbackToPaid(meters).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            }
            return outcome;
        }
    }

    /** A verified channel callback to its order's PAID commit (checks, payment record, stock, ledger, event). */
    private static Timer callbackToPaid(MeterRegistry meters) {
        return Timer.builder("payment.callback.paid.latency")
                .description("a verified payment callback to the PAID commit of its order")
                .serviceLevelObjectives(
                        Duration.ofMillis(10),
                        Duration.ofMillis(25),
                        Duration.ofMillis(50),
                        Duration.ofMillis(100),
                        Duration.ofMillis(250),
                        Duration.ofMillis(500),
                        Duration.ofSeconds(1))
                .publishPercentileHistogram()
                .register(meters);
    }

    private PaymentOutcome applyChecked(
            String provider,
            UUID paymentId,
            UUID orderId,
            OrderRecord order,
            String providerTransactionId,
            BigDecimal amount,
            Instant paidAt,
            String source) {
        PaymentOutcome r;
        try {
            r = tx.execute(s -> paidInTransaction(provider, paymentId, order, providerTransactionId, amount, paidAt));
        } catch (PaymentConflict e) {
            anomalies.record(
                    AnomalyKind.PAYMENT_CONFLICT,
                    ObjectKind.PAYMENT,
                    paymentId.toString(),
                    order.activityId(),
                    order.skuId(),
                    Map.of(
                            "order_id",
                            orderId.toString(),
                            "provider",
                            provider,
                            "provider_transaction_id",
                            providerTransactionId,
                            "source",
                            source,
                            "detail",
                            e.getMessage()));
            meters.counter("payment.apply", "result", "conflict", "source", source)
                    .increment();
            log.error(
                    "payment.conflict payment_id={} order_id={} provider={} provider_transaction_id={} source={}: {}",
                    paymentId,
                    orderId,
                    provider,
                    providerTransactionId,
                    source,
                    e.getMessage());
            throw Refusal.conflict("PAYMENT_CONFLICT", e.getMessage(), "provider_transaction_id");
        }
        meters.counter("payment.apply", "result", r.name().toLowerCase(), "source", source)
                .increment();
        log.info(
                "payment.applied payment_id={} order_id={} provider_transaction_id={} source={} result={}",
                paymentId,
                orderId,
                providerTransactionId,
                source,
                r);
        return r;
    }

    private PaymentOutcome paidInTransaction(
            String provider,
            UUID paymentId,
            OrderRecord order,
            String providerTransactionId,
            BigDecimal amount,
            Instant paidAt) {
        boolean inserted =
                payments.insertPayment(paymentId, order.orderId(), provider, providerTransactionId, amount, paidAt);
        Failpoints.hit(Failpoint.AFTER_PAYMENT_RECORD_INSERT);
        if (!inserted) {
            PaymentRepository.Payment known = payments.payment(paymentId)
                    .orElseThrow(() -> new PaymentConflict(
                            "channel transaction " + providerTransactionId + " is recorded for another payment"));
            if (!known.providerTransactionId().equals(providerTransactionId)
                    || !known.provider().equals(provider)) {
                throw new PaymentConflict("payment " + paymentId + " is recorded with channel transaction "
                        + known.providerTransactionId() + ", not " + providerTransactionId);
            }
        }
        if (orders.pay(order, paidAt)) {
            return PaymentOutcome.PAID;
        }
        OrderRecord now = orders.find(order.orderId()).orElseThrow();
        return switch (now.status()) {
            case PAID -> {
                if (!inserted) {
                    yield PaymentOutcome.ALREADY_PAID;
                }
                startRefund(paymentId, now, DUPLICATE_PAYMENT, providerTransactionId);
                yield PaymentOutcome.REFUNDING;
            }
            case CANCELLED -> {
                if (startRefund(paymentId, now, PAID_AFTER_CANCEL, providerTransactionId)) {
                    yield PaymentOutcome.REFUNDING;
                }
                RefundStatus refund = payments.payment(paymentId).orElseThrow().refundStatus();
                yield refund == RefundStatus.REFUNDED ? PaymentOutcome.REFUNDED : PaymentOutcome.REFUNDING;
            }
            case CREATED, PAYING, CANCEL_PENDING ->
                throw new IllegalStateException(
                        "order " + order.orderId() + " is " + now.status() + " and refused the PAID update");
        };
    }

    /** Inside the payment transaction: the money goes back through the channel, and a human hears of it. */
    private boolean startRefund(UUID paymentId, OrderRecord order, String type, String providerTransactionId) {
        if (!payments.startRefund(paymentId, refundId(paymentId))) {
            return false;
        }
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("order_id", order.orderId().toString());
        evidence.put("order_status", order.status());
        evidence.put("cancelled_at", String.valueOf(order.cancelledAt()));
        evidence.put("cancel_reason", String.valueOf(order.cancelReason()));
        evidence.put("provider_transaction_id", providerTransactionId);
        evidence.put("amount", order.amount().toPlainString());
        anomalies.record(
                AnomalyKind.valueOf(type),
                ObjectKind.PAYMENT,
                paymentId.toString(),
                order.activityId(),
                order.skuId(),
                evidence);
        meters.counter("payment.cancel_race_detected", "type", type).increment();
        log.error(
                "payment.cancel_race_detected type={} payment_id={} order_id={} order_status={} provider_transaction_id={}"
                        + " action=refund",
                type,
                paymentId,
                order.orderId(),
                order.status(),
                providerTransactionId);
        return true;
    }

    private Refusal refused(String reason, UUID orderId, UUID paymentId, Refusal e) {
        meters.counter("payment.callback.refused", "reason", reason).increment();
        log.warn("payment.refused reason={} order_id={} payment_id={}: {}", reason, orderId, paymentId, e.getMessage());
        return e;
    }

    /** The same payment id or channel transaction is already recorded differently. */
    static final class PaymentConflict extends RuntimeException {
        PaymentConflict(String message) {
            super(message);
        }
    }
}
