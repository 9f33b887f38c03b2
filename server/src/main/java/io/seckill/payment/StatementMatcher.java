package io.seckill.payment;

import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.anomaly.StalledWork;
import io.seckill.payment.PaymentStatementWorker.Result;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.payment.channel.PaymentChannel.Callback;
import io.seckill.refusal.Refusal;
import io.seckill.state.ObjectKind;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * What one unrecorded entry of the channel's statement becomes ({@link PaymentStatementWorker}):
 * applied as its callback would have been, an open {@code STATEMENT_UNMATCHED} anomaly when it
 * matches nothing here, or a failure that is retried and past the stall bound is
 * {@code STATEMENT_STALLED}.
 */
@Component
class StatementMatcher {

    private static final Logger log = LoggerFactory.getLogger(StatementMatcher.class);

    private final PaymentService service;
    private final Anomalies anomalies;
    private final StalledWork stalled;
    /** Failed attempts per payment id, while it keeps failing. */
    private final Map<UUID, Integer> failures = new ConcurrentHashMap<>();

    StatementMatcher(PaymentService service, Anomalies anomalies, StalledWork stalled) {
        this.service = service;
        this.anomalies = anomalies;
        this.stalled = stalled;
    }

    /** Settles one entry that has no payment record. */
    Result settle(String provider, Callback entry) {
        if (entry.status() != PaymentChannel.Status.SUCCESS) {
            failures.remove(entry.paymentId());
            unmatched(
                    provider,
                    entry,
                    "REFUND_UNRECORDED",
                    "the channel shows the payment " + entry.status() + " and this side never recorded it");
            return Result.UNMATCHED;
        }
        try {
            PaymentOutcome outcome = service.applyPaid(
                    provider,
                    entry.paymentId(),
                    entry.orderId(),
                    entry.providerTransactionId(),
                    entry.amount(),
                    entry.paidAt(),
                    "statement");
            failures.remove(entry.paymentId());
            log.warn(
                    "payment.statement_applied payment_id={} order_id={} paid_at={} result={} (no callback had reported it)",
                    entry.paymentId(),
                    entry.orderId(),
                    entry.paidAt(),
                    outcome);
            return Result.APPLIED;
        } catch (Refusal r) {
            failures.remove(entry.paymentId());
            unmatched(provider, entry, r.code(), r.getMessage());
            return Result.UNMATCHED;
        } catch (RuntimeException e) {
            int attempts = failures.merge(entry.paymentId(), 1, Integer::sum);
            String error = e.getClass().getSimpleName() + ": " + e.getMessage();
            log.warn(
                    "payment.statement_apply_failed payment_id={} order_id={} attempts={} error_class={}: {}",
                    entry.paymentId(),
                    entry.orderId(),
                    attempts,
                    e.getClass().getName(),
                    e.getMessage());
            stalled.failed(
                    PaymentStatementWorker.WORKER,
                    AnomalyKind.STATEMENT_STALLED,
                    ObjectKind.PAYMENT,
                    entry.paymentId().toString(),
                    null,
                    null,
                    attempts,
                    error,
                    evidence(provider, entry));
            return Result.FAILED;
        }
    }

    private void unmatched(String provider, Callback entry, String reason, String detail) {
        Map<String, Object> evidence = evidence(provider, entry);
        evidence.put("reason", reason);
        evidence.put("detail", detail);
        if (anomalies.record(
                AnomalyKind.STATEMENT_UNMATCHED,
                ObjectKind.PAYMENT,
                entry.paymentId().toString(),
                null,
                null,
                evidence)) {
            log.error(
                    "payment.statement_unmatched payment_id={} order_id={} channel_status={} reason={}: {}",
                    entry.paymentId(),
                    entry.orderId(),
                    entry.status(),
                    reason,
                    detail);
        }
    }

    private static Map<String, Object> evidence(String provider, Callback entry) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("provider", provider);
        m.put("order_id", entry.orderId().toString());
        m.put("provider_transaction_id", entry.providerTransactionId());
        m.put("amount", entry.amount().toPlainString());
        m.put("channel_status", entry.status().name());
        m.put("paid_at", String.valueOf(entry.paidAt()));
        return m;
    }
}
