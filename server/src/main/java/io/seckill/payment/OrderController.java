package io.seckill.payment;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.api.Caller.Buyer;
import io.seckill.config.SeckillProperties;
import io.seckill.order.OrderRecord;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.refusal.Refusal;
import io.seckill.state.RefundStatus;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
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

    @GetMapping("/api/v1/orders/{orderId}")
    Map<String, Object> get(Buyer buyer, @PathVariable String orderId) {
        return view(checkout.owned(buyer.userId(), orderUuid(orderId)));
    }

    @PostMapping("/api/v1/orders/{orderId}/payments")
    ResponseEntity<Map<String, Object>> pay(Buyer buyer, @PathVariable String orderId) {
        Checkout.Opened p = checkout.open(checkout.owned(buyer.userId(), orderUuid(orderId)), notifyUrl());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("order_id", p.orderId().toString());
        out.put("payment_id", p.paymentId().toString());
        out.put("provider", p.provider());
        out.put("provider_transaction_id", p.providerTransactionId());
        out.put("pay_url", p.payUrl() == null ? null : cfg.channelUrl() + p.payUrl());
        out.put("amount", p.amount().toPlainString());
        out.put("channel_status", p.channelStatus().name());
        return ResponseEntity.status(HttpStatus.CREATED).body(out);
    }

    @PostMapping("/api/v1/orders/{orderId}/cancel")
    Map<String, Object> cancel(Buyer buyer, @PathVariable String orderId) {
        return view(checkout.cancel(checkout.owned(buyer.userId(), orderUuid(orderId))));
    }

    @PostMapping("/api/v1/payments/callbacks/{provider}")
    Map<String, Object> callback(
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
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("payment_id", cb.paymentId().toString());
        // only a successful payment pays an order; a refund notice never does: it is answered with the refund state
        // this side already holds (the refund worker confirms refunds with the channel itself), and writes nothing
        if (cb.status() == PaymentChannel.Status.REFUNDED) {
            RefundStatus known = payments.payment(cb.paymentId())
                    .map(PaymentRepository.Payment::refundStatus)
                    .orElse(null);
            meters.counter("payment.callback.refund_notice").increment();
            out.put("result", known == null ? "IGNORED" : known.name());
            return out;
        }
        if (cb.status() != PaymentChannel.Status.SUCCESS) {
            meters.counter("payment.callback.ignored").increment();
            log.info("payment.callback_ignored payment_id={} status={}", cb.paymentId(), cb.status());
            out.put("result", "IGNORED");
            return out;
        }
        PaymentOutcome r = paymentService.applyPaid(
                provider,
                cb.paymentId(),
                cb.orderId(),
                cb.providerTransactionId(),
                cb.amount(),
                cb.paidAt() == null ? clock.instant() : cb.paidAt(),
                "callback");
        out.put("result", r.name());
        return out;
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

    static Map<String, Object> view(OrderRecord o) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("order_id", o.orderId().toString());
        m.put("reservation_id", o.reservationId().toString());
        m.put("activity_id", o.activityId());
        m.put("sku_id", o.skuId());
        m.put("status", o.status().name());
        m.put("amount", o.amount().toPlainString());
        m.put("expires_at", o.expiresAt().toString());
        if (o.paidAt() != null) {
            m.put("paid_at", o.paidAt().toString());
        }
        if (o.cancelledAt() != null) {
            m.put("cancelled_at", o.cancelledAt().toString());
        }
        if (o.cancelReason() != null) {
            m.put("cancel_reason", o.cancelReason());
        }
        return m;
    }
}
