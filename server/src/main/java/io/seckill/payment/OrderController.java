package io.seckill.payment;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.api.Caller.Buyer;
import io.seckill.config.SeckillProperties;
import io.seckill.order.OrderRecord;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.refusal.Refusal;
import io.seckill.state.RefundStatus;
import java.time.Clock;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** The buyer's order API (see, pay, cancel) and the channel's callback endpoint, over {@link Checkout} and {@link PaymentService}. */
@RestController
class OrderController {

    private static final Logger log = LoggerFactory.getLogger(OrderController.class);

    private final PaymentRepository payments;
    private final PaymentService paymentService;
    private final Checkout checkout;
    private final PaymentChannel channel;
    private final SeckillProperties.Payment cfg;
    private final Environment env;
    private final MeterRegistry meters;
    private final Clock clock;

    OrderController(
            PaymentRepository payments,
            PaymentService paymentService,
            Checkout checkout,
            PaymentChannel channel,
            SeckillProperties props,
            Environment env,
            MeterRegistry meters,
            Clock clock) {
        this.clock = clock;
        this.payments = payments;
        this.paymentService = paymentService;
        this.checkout = checkout;
        this.channel = channel;
        this.cfg = props.payment();
        this.env = env;
        this.meters = meters;
    }

    /** An order as its buyer sees it; the times of a payment and a cancellation once they happened. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record OrderView(
            String orderId,
            String reservationId,
            long activityId,
            long skuId,
            String status,
            String amount,
            String expiresAt,
            String paidAt,
            String cancelledAt,
            String cancelReason) {}

    /** A payment opened at the channel: where the buyer pays ({@code pay_url}) and what. */
    record PaymentStarted(
            String orderId,
            String paymentId,
            String provider,
            String providerTransactionId,
            String payUrl,
            String amount,
            String channelStatus) {}

    /** What a channel's callback did: the payment it named and the outcome ({@code IGNORED} when nothing). */
    record CallbackAnswer(String paymentId, String result) {}

    @GetMapping("/api/v1/orders/{orderId}")
    OrderView get(Buyer buyer, @PathVariable String orderId) {
        return view(checkout.owned(buyer.userId(), orderUuid(orderId)));
    }

    @PostMapping("/api/v1/orders/{orderId}/payments")
    ResponseEntity<PaymentStarted> pay(Buyer buyer, @PathVariable String orderId) {
        Checkout.Opened p = checkout.open(checkout.owned(buyer.userId(), orderUuid(orderId)), notifyUrl());
        return ResponseEntity.status(HttpStatus.CREATED)
                .body(new PaymentStarted(
                        p.orderId().toString(),
                        p.paymentId().toString(),
                        p.provider(),
                        p.providerTransactionId(),
                        p.payUrl() == null ? null : cfg.channelUrl() + p.payUrl(),
                        p.amount().toPlainString(),
                        p.channelStatus().name()));
    }

    @PostMapping("/api/v1/orders/{orderId}/cancel")
    OrderView cancel(Buyer buyer, @PathVariable String orderId) {
        return view(checkout.cancel(checkout.owned(buyer.userId(), orderUuid(orderId))));
    }

    @PostMapping("/api/v1/payments/callbacks/{provider}")
    CallbackAnswer callback(
            @PathVariable String provider,
            @RequestHeader HttpHeaders headers,
            @RequestBody(required = false) byte[] body) {
        if (!channel.provider().equals(provider)) {
            throw new Refusal(Refusal.Kind.NOT_FOUND, "UNKNOWN_PROVIDER", "no payment provider '" + provider + "'");
        }
        PaymentChannel.Callback cb;
        try {
            cb = channel.verify(headers.toSingleValueMap(), body == null ? new byte[0] : body);
        } catch (PaymentChannel.CallbackRejected e) {
            meters.counter("payment.callback.refused", "reason", "verification").increment();
            log.warn("payment.callback_rejected provider={} field={}: {}", provider, e.field(), e.getMessage());
            throw new Refusal(Refusal.Kind.UNAUTHENTICATED, "CALLBACK_REJECTED", e.getMessage(), e.field(), null);
        }
        String paymentId = cb.paymentId().toString();
        // only a successful payment pays an order; a refund notice never does: it is answered with the refund state
        // this side already holds (the refund worker confirms refunds with the channel itself), and writes nothing
        if (cb.status() == PaymentChannel.Status.REFUNDED) {
            RefundStatus known = payments.payment(cb.paymentId())
                    .map(PaymentRepository.Payment::refundStatus)
                    .orElse(null);
            meters.counter("payment.callback.refund_notice").increment();
            return new CallbackAnswer(paymentId, known == null ? "IGNORED" : known.name());
        }
        if (cb.status() != PaymentChannel.Status.SUCCESS) {
            meters.counter("payment.callback.ignored").increment();
            log.info("payment.callback_ignored payment_id={} status={}", cb.paymentId(), cb.status());
            return new CallbackAnswer(paymentId, "IGNORED");
        }
        PaymentOutcome r = paymentService.applyPaid(
                provider,
                cb.paymentId(),
                cb.orderId(),
                cb.providerTransactionId(),
                cb.amount(),
                cb.paidAt() == null ? clock.instant() : cb.paidAt(),
                "callback");
        return new CallbackAnswer(paymentId, r.name());
    }

    private String notifyUrl() {
        if (cfg.notifyUrl() != null) {
            return cfg.notifyUrl();
        }
        return "http://127.0.0.1:" + env.getProperty("local.server.port", "8080") + "/api/v1/payments/callbacks/"
                + channel.provider();
    }

    private static UUID orderUuid(String orderId) {
        try {
            return UUID.fromString(orderId);
        } catch (IllegalArgumentException e) {
            throw Refusal.invalid("order_id", "must be a UUID");
        }
    }

    static OrderView view(OrderRecord o) {
        return new OrderView(
                o.orderId().toString(),
                o.reservationId().toString(),
                o.activityId(),
                o.skuId(),
                o.status().name(),
                o.amount().toPlainString(),
                o.expiresAt().toString(),
                o.paidAt() == null ? null : o.paidAt().toString(),
                o.cancelledAt() == null ? null : o.cancelledAt().toString(),
                o.cancelReason());
    }
}
