package io.seckill.order;

/** What became of one ORDER_CREATE_REQUESTED message. RETRY is the only one not acknowledged. */
public enum Outcome {
    /** Order created (inbox ORDER_CREATED). */
    CREATED("ORDER_CREATED"),
    /** PostgreSQL stock exhausted: reservation ORDER_REJECTED + compensation (inbox REJECTED_SOLD_OUT). */
    REJECTED_SOLD_OUT("REJECTED_SOLD_OUT"),
    /** The user already has an order: stock restored in the same transaction (inbox REJECTED_DUPLICATE_USER). */
    REJECTED_DUPLICATE_USER("REJECTED_DUPLICATE_USER"),
    /** A durable rejection (tombstone) existed before this message (inbox LATE_REJECTED, design 11.2). */
    LATE_REJECTED("LATE_REJECTED"),
    /** Already processed by this group with the same payload: no effect. */
    DUPLICATE(null),
    /** Known id with a different payload, or unreadable: kept for a human, no effect. */
    QUARANTINED(null),
    /** Not processed now (error or unknown commit outcome): redelivered with the same id. */
    RETRY(null);

    private final String inboxCode;

    Outcome(String inboxCode) {
        this.inboxCode = inboxCode;
    }

    /** The inbox result_code this outcome writes, or null when it writes none. */
    public String inboxCode() {
        return inboxCode;
    }

    public static Outcome fromInboxCode(String code) {
        for (Outcome o : values()) {
            if (code.equals(o.inboxCode)) {
                return o;
            }
        }
        throw new IllegalArgumentException("unknown inbox result_code " + code);
    }
}
