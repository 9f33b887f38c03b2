package io.seckill.reservation;

import java.util.UUID;

/** What admission answered: values, not exceptions. */
public sealed interface ReserveResult {

    /** A new reservation; the order message is on its way. */
    record Queued(UUID reservationId) implements ReserveResult {}

    /** The same request again: the reservation it already made, in its current state. */
    record Replayed(UUID reservationId, String status) implements ReserveResult {}

    record SoldOut() implements ReserveResult {}

    /** The user already holds a reservation for this SKU (one attempt per user). */
    record AlreadyReserved(UUID reservationId, String status) implements ReserveResult {}

    record NotOpen(String saleStatus) implements ReserveResult {}
}
