package io.seckill.state;

import java.util.EnumSet;
import java.util.Set;

/** {@code payment_record.status}: what the channel said; a record is written once and never moves. */
public enum PaymentStatus implements Lifecycle<PaymentStatus> {
    SUCCESS,
    FAILED;

    @Override
    public Set<PaymentStatus> next() {
        return EnumSet.noneOf(PaymentStatus.class);
    }
}
