package io.seckill.payment.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PaysimChannelVerifyTest {

    private static final String SECRET = "unit-callback-secret-0123456789abcdef01234";
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private final PaysimChannel channel = new PaysimChannel(
            "http://127.0.0.1:1",
            Duration.ofSeconds(1),
            SECRET,
            Duration.ofMinutes(5),
            Clock.fixed(NOW, ZoneOffset.UTC));
    private final CallbackSignature signer = new CallbackSignature(SECRET);
    private final UUID payment = UUID.randomUUID();
    private final UUID order = UUID.randomUUID();

    private byte[] body(String amount, String status) {
        return ("{\"payment_id\":\"" + payment + "\",\"order_id\":\"" + order
                        + "\",\"provider_transaction_id\":\"PS1\"," + "\"amount\":\"" + amount + "\",\"status\":\""
                        + status + "\",\"paid_at\":\"" + NOW + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private Map<String, String> headers(long ts, byte[] body) {
        return Map.of("x-pay-timestamp", Long.toString(ts), "X-PAY-SIGNATURE", signer.sign(ts, body));
    }

    @Test
    @DisplayName("a callback signed with the channel secret inside the window is read field by field")
    void genuine() {
        byte[] b = body("10.50", "SUCCESS");
        PaymentChannel.Callback cb = channel.verify(headers(NOW.getEpochSecond() - 60, b), b);
        assertThat(cb.paymentId()).isEqualTo(payment);
        assertThat(cb.orderId()).isEqualTo(order);
        assertThat(cb.amount()).isEqualByComparingTo(new BigDecimal("10.50"));
        assertThat(cb.status()).isEqualTo(PaymentChannel.Status.SUCCESS);
        assertThat(cb.paidAt()).isEqualTo(NOW);
    }

    @Test
    @DisplayName(
            "forged, tampered, stale or future-dated, unsigned and malformed callbacks are refused, naming the field")
    void refused() {
        byte[] b = body("10.50", "SUCCESS");
        long ts = NOW.getEpochSecond();
        Map<String, String> forged = Map.of(
                "X-Pay-Timestamp",
                Long.toString(ts),
                "X-Pay-Signature",
                new CallbackSignature("another-secret-0123456789abcdef0123456789").sign(ts, b));
        assertField(() -> channel.verify(forged, b), "X-Pay-Signature");
        assertField(() -> channel.verify(headers(ts, b), body("0.01", "SUCCESS")), "X-Pay-Signature");
        assertField(() -> channel.verify(headers(ts - 301, b), b), "X-Pay-Timestamp");
        assertField(() -> channel.verify(headers(ts + 301, b), b), "X-Pay-Timestamp");
        assertField(() -> channel.verify(Map.of(), b), "X-Pay-Timestamp");
        assertField(() -> channel.verify(Map.of("X-Pay-Timestamp", "yesterday"), b), "X-Pay-Timestamp");
        byte[] bad = body("ten", "SUCCESS");
        assertField(() -> channel.verify(headers(ts, bad), bad), "amount");
        byte[] unknown = body("1", "MAYBE");
        assertField(() -> channel.verify(headers(ts, unknown), unknown), "status");
        byte[] notJson = "payment ok".getBytes(StandardCharsets.UTF_8);
        assertField(() -> channel.verify(headers(ts, notJson), notJson), "body");
    }

    @Test
    @DisplayName("a secret shorter than 32 characters is refused")
    void shortSecret() {
        assertThatThrownBy(() -> new CallbackSignature("short")).hasMessageContaining("32");
    }

    private static void assertField(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String field) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        PaymentChannel.CallbackRejected.class,
                        e -> assertThat(e.field()).isEqualTo(field));
    }
}
