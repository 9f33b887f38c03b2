package io.seckill.state;

/**
 * A reservation's status as buyers see it (SPEC, "Reservation status"): the one vocabulary of the 202 answer and
 * of the status poll, whether the poll was answered from Redis ({@link HashStatus#shown}) or from PostgreSQL
 * ({@link #of(ReservationStatus)}).
 */
public enum PublicStatus {
    /** Admitted; the order is being made. */
    QUEUED,
    ORDER_CREATED,
    CANCELLED,
    /** Held for a person (an operator's freeze, or a worker that gave up). */
    UNDER_REVIEW,
    /** No order: PostgreSQL refused it (sold out there, a second order of the buyer) or its deadline passed. */
    REJECTED;

    public static PublicStatus of(ReservationStatus status) {
        return switch (status) {
            case RESERVED -> QUEUED;
            case ORDER_CREATED -> ORDER_CREATED;
            case CANCELLED -> CANCELLED;
            case MANUAL_REVIEW -> UNDER_REVIEW;
            case ORDER_REJECTED, COMPENSATING, COMPENSATED -> REJECTED;
        };
    }
}
