package io.seckill.state;

import java.util.EnumSet;
import java.util.Set;

/**
 * {@code event_outbox.status}. An event that cannot be sent is retried with capped backoff for as
 * long as the failure lasts (and reported as stalled); MANUAL is in the schema for an operator's
 * use, no automated move leads there.
 */
public enum OutboxStatus implements Lifecycle<OutboxStatus> {
    PENDING,
    /** Claimed by a relay under a lease; an expired lease may be claimed again. */
    SENDING,
    RETRY,
    SENT,
    MANUAL;

    @Override
    public Set<OutboxStatus> next() {
        return switch (this) {
            case PENDING -> EnumSet.of(SENDING);
            case SENDING -> EnumSet.of(SENDING, SENT, RETRY);
            case RETRY -> EnumSet.of(SENDING);
            case SENT, MANUAL -> EnumSet.noneOf(OutboxStatus.class);
        };
    }
}
