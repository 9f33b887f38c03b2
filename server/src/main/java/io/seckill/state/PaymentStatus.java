package io.seckill.state;

/** {@code payment_record.status}: what the channel said; a record is written once and never moves. */
public enum PaymentStatus implements Lifecycle<PaymentStatus> {
    SUCCESS,
    FAILED;
}
