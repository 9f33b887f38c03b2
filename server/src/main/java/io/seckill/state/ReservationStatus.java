package io.seckill.state;

import java.util.EnumSet;
import java.util.Set;

/**
 * {@code inventory_reservation.status}: the durable reservation state machine. PostgreSQL first
 * writes a reservation in the state the order transaction decided (ORDER_CREATED or
 * ORDER_REJECTED); RESERVED rows come only from a frozen reservation given back.
 */
public enum ReservationStatus implements Lifecycle<ReservationStatus> {
    RESERVED,
    ORDER_CREATED,
    ORDER_REJECTED,
    COMPENSATING,
    COMPENSATED,
    CANCELLED,
    /** Taken out of automation by an operator or by a worker that gave up; given back by the runbook. */
    MANUAL_REVIEW;

    @Override
    public Set<ReservationStatus> next() {
        return switch (this) {
            case RESERVED -> EnumSet.of(ORDER_CREATED, ORDER_REJECTED, MANUAL_REVIEW);
            case ORDER_CREATED -> EnumSet.of(CANCELLED);
            case ORDER_REJECTED -> EnumSet.of(COMPENSATING, MANUAL_REVIEW);
            case COMPENSATING -> EnumSet.of(COMPENSATED, MANUAL_REVIEW);
            case MANUAL_REVIEW -> EnumSet.of(RESERVED, ORDER_REJECTED, COMPENSATING);
            case COMPENSATED, CANCELLED -> EnumSet.noneOf(ReservationStatus.class);
        };
    }
}
