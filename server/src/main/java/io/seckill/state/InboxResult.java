package io.seckill.state;

import java.util.EnumSet;
import java.util.Set;

/** {@code consumer_inbox.result_code}: PROCESSING while the consuming transaction runs, then what it decided. */
public enum InboxResult implements Lifecycle<InboxResult> {
    PROCESSING,
    ORDER_CREATED,
    REJECTED_SOLD_OUT,
    REJECTED_DUPLICATE_USER,
    /** A durable rejection (tombstone) existed before the message. */
    LATE_REJECTED;

    @Override
    public Set<InboxResult> next() {
        return this == PROCESSING ? EnumSet.complementOf(EnumSet.of(PROCESSING)) : EnumSet.noneOf(InboxResult.class);
    }
}
