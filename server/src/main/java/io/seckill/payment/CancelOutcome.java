package io.seckill.payment;

/** How one CANCEL_PENDING order was resolved. */
public enum CancelOutcome {
    /** This call cancelled the order and released its unit. */
    CANCELLED,
    /** The channel had the money: the order became PAID. */
    PAID,
    /** The channel did not answer; the order stays CANCEL_PENDING and is asked again later. */
    UNKNOWN,
    /** Nothing to do: already final, or another worker holds it. */
    NOOP
}
