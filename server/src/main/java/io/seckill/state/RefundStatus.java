package io.seckill.state;

/** {@code payment_record.refund_status}: NULL (money kept), then REFUNDING, then REFUNDED. */
public enum RefundStatus implements Lifecycle<RefundStatus> {
    REFUNDING,
    REFUNDED;
}
