package io.seckill.payment.channel;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What the engine needs from a payment channel (DESIGN.md §7.6). A real channel (a card acquirer, a
 * wallet) implements this; the project ships {@link PaysimChannel} for its own simulator. Every
 * call is made OUTSIDE any database transaction, may fail or time out, and is idempotent by the
 * ids the engine passes (payment id, refund id).
 */
public interface PaymentChannel {

    /** The provider name used in {@code payment_record.provider} and the callback path. */
    String provider();

    /** Opens (or returns the already opened) channel payment {@code paymentId}. */
    Created create(UUID paymentId, UUID orderId, BigDecimal amount, String notifyUrl);

    /** What the channel knows of a payment. */
    State query(UUID paymentId);

    /** Closes an unpaid payment so it can no longer be paid; a paid one stays paid and says so. */
    State close(UUID paymentId);

    /** Gives the money of a successful payment back, once per refund id. */
    State refund(UUID paymentId, UUID refundId, BigDecimal amount);

    /**
     * One page of the channel's statement: every payment whose money was taken at {@code from <= paid_at < to}
     * (kept or refunded since), oldest first, after the entry {@code after} names (null: from the
     * start). Each entry reads as the callback the channel would have sent for it. A callback can be
     * lost for good (a real channel stops retrying); the statement cannot, so it is what the engine
     * reconciles against.
     */
    Statement statement(Instant from, Instant to, String after, int limit);

    /**
     * Checks a callback's signature and timestamp window and reads it.
     *
     * @throws CallbackRejected naming what is wrong; nothing may be written for such a callback
     */
    Callback verify(Map<String, String> headers, byte[] body);

    /** The channel's view of one payment. */
    enum Status {
        /** The channel never heard of this payment id. */
        NOT_FOUND,
        /** Opened, not paid. */
        WAITING,
        /** Money taken. */
        SUCCESS,
        /** Closed unpaid; it can no longer be paid. */
        CLOSED,
        /** Money taken and given back. */
        REFUNDED
    }

    record Created(UUID paymentId, String providerTransactionId, String payUrl, Status status) {}

    record State(UUID paymentId, Status status, String providerTransactionId, BigDecimal amount, Instant paidAt) {
        /** The channel holds the buyer's money for this payment (or did, before a refund). */
        public boolean paid() {
            return status == Status.SUCCESS || status == Status.REFUNDED;
        }
    }

    /** A page of the statement; {@code next} is the cursor of the following page, null on the last one. */
    record Statement(List<Callback> entries, String next) {}

    /** A verified asynchronous notification, or an entry of the statement. */
    record Callback(
            UUID paymentId,
            UUID orderId,
            String providerTransactionId,
            BigDecimal amount,
            Status status,
            Instant paidAt) {}

    /** A call the channel did not answer, or answered with an error: the outcome is unknown. */
    final class ChannelUnavailable extends RuntimeException {
        public ChannelUnavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** A callback that must be refused: forged, stale or malformed. */
    final class CallbackRejected extends RuntimeException {
        private final String field;

        public CallbackRejected(String field, String message) {
            super(message);
            this.field = field;
        }

        public String field() {
            return field;
        }
    }
}
