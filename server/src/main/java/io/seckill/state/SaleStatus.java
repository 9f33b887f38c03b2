package io.seckill.state;

/** {@code activity.status}. Warm, open and close are idempotent: each may repeat itself. */
public enum SaleStatus implements Lifecycle<SaleStatus> {
    /** Created; nothing in Redis yet. */
    DRAFT,
    /** Stock and sale meta loaded into Redis; admission still refused. */
    WARMED,
    /** Admission open. */
    OPEN,
    /** Admission stopped; orders, payment and reconciliation go on. An operator may reopen it. */
    CLOSED;

    /** A sale Redis has been prepared for (warmed at least once). */
    public boolean warmed() {
        return this != DRAFT;
    }
}
