package io.seckill.state;

/** {@code consumer_inbox.result_code}: PROCESSING while the consuming transaction runs, then what it decided. */
public enum InboxResult implements Lifecycle<InboxResult> {
    PROCESSING,
    ORDER_CREATED,
    REJECTED_SOLD_OUT,
    REJECTED_DUPLICATE_USER,
    /** A durable rejection (tombstone) existed before the message. */
    LATE_REJECTED;
}
