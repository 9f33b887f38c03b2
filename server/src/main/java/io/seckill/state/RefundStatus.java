package io.seckill.state;

import java.util.EnumSet;
import java.util.Set;

/** {@code payment_record.refund_status}: NULL (money kept), then REFUNDING, then REFUNDED. */
public enum RefundStatus implements Lifecycle<RefundStatus> {
    REFUNDING,
    REFUNDED;

    @Override
    public Set<RefundStatus> next() {
        return this == REFUNDING ? EnumSet.of(REFUNDED) : EnumSet.noneOf(RefundStatus.class);
    }
}
