package io.seckill.payment;

/** What applying a successful payment did. */
public enum PaymentOutcome {
    /** This call moved the order to PAID. */
    PAID,
    /** The order was already PAID by this payment: nothing more to do. */
    ALREADY_PAID,
    /** The order is cancelled; the money goes back (REFUNDING). */
    REFUNDING,
    /** The order is cancelled and this payment was already given back. */
    REFUNDED
}
