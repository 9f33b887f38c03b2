package io.seckill.state;

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
}
