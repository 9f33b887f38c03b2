package io.seckill.state;

/**
 * {@code event_outbox.status}. An event that cannot be sent is retried with capped backoff for as
 * long as the failure lasts (and reported as stalled); only an event the broker refuses for what it
 * is - never for an outage - goes MANUAL.
 */
public enum OutboxStatus implements Lifecycle<OutboxStatus> {
    PENDING,
    /** Claimed by a relay under a lease; an expired lease may be claimed again. */
    SENDING,
    RETRY,
    SENT,
    /** The broker refused the event as it is (no retry can succeed): kept, with an anomaly, for a person. */
    MANUAL;
}
