package io.seckill.order;

import io.seckill.state.InboxResult;

/** What became of one ORDER_CREATE_REQUESTED message. RETRY is the only one not acknowledged. */
public enum MessageOutcome {
    /** Order created (inbox ORDER_CREATED). */
    CREATED(InboxResult.ORDER_CREATED),
    /** PostgreSQL stock exhausted: reservation ORDER_REJECTED + compensation (inbox REJECTED_SOLD_OUT). */
    REJECTED_SOLD_OUT(InboxResult.REJECTED_SOLD_OUT),
    /** The user already has an order: stock restored in the same transaction (inbox REJECTED_DUPLICATE_USER). */
    REJECTED_DUPLICATE_USER(InboxResult.REJECTED_DUPLICATE_USER),
    /** A durable rejection (tombstone) existed before this message (inbox LATE_REJECTED). */
    LATE_REJECTED(InboxResult.LATE_REJECTED),
    /** Already processed by this group with the same payload: no effect. */
    DUPLICATE(null),
    /** Known id with a different payload, or unreadable: kept for a human, no effect. */
    QUARANTINED(null),
    /** Not processed now (error or unknown commit outcome): redelivered with the same id. */
    RETRY(null);

    private final InboxResult inboxResult;

    MessageOutcome(InboxResult inboxResult) {
        this.inboxResult = inboxResult;
    }

    /** The inbox result this outcome writes, or null when it writes none. */
    public InboxResult inboxResult() {
        return inboxResult;
    }

    /** The outcome an inbox row records; a row still PROCESSING records none yet. */
    public static MessageOutcome of(InboxResult result) {
        for (MessageOutcome o : values()) {
            if (o.inboxResult == result) {
                return o;
            }
        }
        throw new IllegalArgumentException("no outcome for inbox result " + result);
    }
}
