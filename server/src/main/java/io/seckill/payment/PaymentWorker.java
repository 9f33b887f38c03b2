package io.seckill.payment;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.anomaly.StalledWork;
import io.seckill.config.SeckillProperties;
import io.seckill.mq.MqClients;
import io.seckill.order.Orders;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.state.ObjectKind;
import io.seckill.worker.PollingWorker;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The {@code payment} role: each pass moves expired orders to CANCEL_PENDING, resolves the due
 * CANCEL_PENDING orders through the channel, and drives refunds of money taken after a cancel.
 * Several instances may run it: every unit of work is claimed with SKIP LOCKED and a lease.
 */
@Component
public class PaymentWorker extends PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(PaymentWorker.class);

    private final OrderCanceller canceller;
    private final PaymentRepository payments;
    private final Orders orders;
    private final PaymentChannel channel;
    private final SeckillProperties.Payment cfg;
    private final StalledWork stalled;
    private final String owner = MqClients.instanceName("payment");

    PaymentWorker(
            OrderCanceller canceller,
            PaymentRepository payments,
            Orders orders,
            PaymentChannel channel,
            StalledWork stalled,
            SeckillProperties props,
            MeterRegistry meters) {
        super("payment", "payment.worker", props.payment().scanInterval(), props, meters);
        this.stalled = stalled;
        this.canceller = canceller;
        this.payments = payments;
        this.orders = orders;
        this.channel = channel;
        this.cfg = props.payment();
        showBacklog("order.cancel.backlog", "order.cancel_pending.oldest.age.seconds", orders::cancelBacklog);
    }

    @Override
    protected int runPass() {
        return runOnce(owner);
    }

    /** One pass as {@code leaseOwner}: expire, resolve, refund. Returns how much it did. */
    public int runOnce(String leaseOwner) {
        int done = canceller.markExpired(cfg.batch());
        done += canceller.resolvePending(leaseOwner);
        done += refunds(leaseOwner);
        return done;
    }

    /** Refunds of money taken after a cancel: the channel dedupes by refund id, PostgreSQL by the lease. */
    public int refunds(String leaseOwner) {
        List<PaymentRepository.Refund> due = payments.claimRefunds(cfg.batch(), leaseOwner, cfg.lease());
        for (PaymentRepository.Refund r : due) {
            String result;
            String error = null;
            try {
                PaymentChannel.State s = channel.refund(r.paymentId(), r.refundId(), r.amount());
                if (s.status() == PaymentChannel.Status.REFUNDED && payments.markRefunded(r.paymentId(), leaseOwner)) {
                    result = "refunded";
                    log.warn(
                            "payment.refunded payment_id={} order_id={} refund_id={} amount={}",
                            r.paymentId(),
                            r.orderId(),
                            r.refundId(),
                            r.amount());
                } else {
                    payments.refundBackoff(r.paymentId(), leaseOwner, cfg.backoff());
                    result = "not_refunded";
                    error = "channel answered " + s.status();
                    log.warn(
                            "payment.refund_pending payment_id={} channel_status={} attempts={}",
                            r.paymentId(),
                            s.status(),
                            r.attempts());
                }
            } catch (PaymentChannel.ChannelUnavailable e) {
                payments.refundBackoff(r.paymentId(), leaseOwner, cfg.backoff());
                result = "unknown";
                error = e.getMessage();
                log.warn(
                        "payment.refund_unknown payment_id={} attempts={}: {}",
                        r.paymentId(),
                        r.attempts(),
                        e.getMessage());
            } catch (RuntimeException e) {
                // one refund that fails does not hold up the others: backed off, counted, an anomaly past the bound
                payments.refundBackoff(r.paymentId(), leaseOwner, cfg.backoff());
                result = "failed";
                error = e.getClass().getSimpleName() + ": " + e.getMessage();
                log.warn(
                        "payment.refund_failed payment_id={} attempts={} error_class={}: {}",
                        r.paymentId(),
                        r.attempts(),
                        e.getClass().getName(),
                        e.getMessage());
            }
            meters.counter("payment.refund", "result", result).increment();
            if (error != null) {
                stalled.failed(
                        "payment",
                        AnomalyKind.REFUND_STALLED,
                        ObjectKind.PAYMENT,
                        r.paymentId().toString(),
                        null,
                        null,
                        r.attempts(),
                        error,
                        Map.of(
                                "order_id",
                                r.orderId().toString(),
                                "refund_id",
                                r.refundId().toString()));
            }
        }
        return due.size();
    }
}
