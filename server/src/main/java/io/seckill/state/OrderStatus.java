package io.seckill.state;

/** {@code orders.status}. A payment wins over every unpaid state, CANCEL_PENDING included. */
public enum OrderStatus implements Lifecycle<OrderStatus> {
    CREATED,
    PAYING,
    PAID,
    CANCEL_PENDING,
    CANCELLED;

    /** Not paid and not on its way out: the buyer may still pay or cancel. */
    public boolean unpaid() {
        return this == CREATED || this == PAYING;
    }
}
