package io.seckill.state;

import java.util.EnumSet;
import java.util.Set;

/** {@code orders.status}. A payment wins over every unpaid state, CANCEL_PENDING included. */
public enum OrderStatus implements Lifecycle<OrderStatus> {
    CREATED,
    PAYING,
    PAID,
    CANCEL_PENDING,
    CANCELLED;

    @Override
    public Set<OrderStatus> next() {
        return switch (this) {
            case CREATED -> EnumSet.of(PAYING, PAID, CANCEL_PENDING);
            case PAYING -> EnumSet.of(PAID, CANCEL_PENDING);
            case CANCEL_PENDING -> EnumSet.of(PAID, CANCELLED);
            case PAID, CANCELLED -> EnumSet.noneOf(OrderStatus.class);
        };
    }

    /** Not paid and not on its way out: the buyer may still pay or cancel. */
    public boolean unpaid() {
        return this == CREATED || this == PAYING;
    }
}
