package io.seckill.anomaly;

/**
 * Every kind of anomaly the engine records for a person ({@code reconcile_anomaly.anomaly_type}, by name): what
 * automation will not decide. The runbook (docs/RECONCILIATION.md, docs/ALERTS.md) says what to do with each. A
 * {@code *_STALLED} kind is a piece of work that keeps failing and is still retried; the others wait for a person.
 */
public enum AnomalyKind {
    // admission and sending
    /** A send_due entry whose reservation hash was gone: it could not be re-sent. */
    SEND_DUE_ORPHAN,
    /** A send_due entry whose reservation hash could not be read as an order request. */
    SEND_DUE_UNREADABLE,
    /** The send-due rescan of one Redis slot keeps failing. */
    SEND_DUE_SLOT_STALLED,
    /** The admission breaker's reading of one slot's send backlog keeps failing. */
    SEND_BACKLOG_SLOT_STALLED,

    // time-driven rejection
    /** A reservation past its deadline, gone from Redis and unknown to PostgreSQL when swept. */
    DEADLINE_RESERVATION_MISSING,
    /** A reservation past its deadline whose request identity PostgreSQL holds for another reservation. */
    DEADLINE_REQUEST_CONFLICT,
    /** Rejecting one reservation past its deadline keeps failing. */
    DEADLINE_SWEEP_STALLED,
    /** The deadline sweep of one Redis slot keeps failing. */
    DEADLINE_SLOT_STALLED,

    // order messages and events
    /** An order message whose id this group already processed with a different payload: quarantined. */
    INBOX_PAYLOAD_CONFLICT,
    /** An order message whose ids no id key of the fleet made: quarantined, never processed. */
    INBOX_FORGED,
    /** An order message that cannot be read: quarantined. */
    INBOX_UNREADABLE,
    /** An order event whose signature does not verify: not projected. */
    FORGED_ORDER_EVENT,
    /** An outbox event the relay gave up sending: a person re-arms or closes it. */
    OUTBOX_MANUAL,
    /** Sending one outbox event keeps failing. */
    OUTBOX_SEND_STALLED,

    // compensation: a task that keeps failing, and each refusal that leaves a task to a person
    /** One compensation task keeps failing. */
    COMPENSATION_STALLED,
    /** The task's reservation is unknown to PostgreSQL. */
    COMPENSATION_RESERVATION_UNKNOWN,
    /** The task's reservation is in a state compensation may not leave. */
    COMPENSATION_STATE_CONFLICT,
    /** The task's SKU is unknown. */
    COMPENSATION_SKU_UNKNOWN,
    /** compensate.lua: the reservation hash is gone. */
    COMPENSATION_RESERVATION_MISSING,
    /** compensate.lua: the hash holds another reservation's id. */
    COMPENSATION_RESERVATION_ID_MISMATCH,
    /** compensate.lua: the reservation has an order. */
    COMPENSATION_ORDER_ALREADY_EXISTS,
    /** compensate.lua: another compensation id already moved this reservation. */
    COMPENSATION_COMPENSATION_ID_CONFLICT,
    /** compensate.lua: the hash's status is one compensation may not move (one per status). */
    COMPENSATION_INVALID_STATUS_RESERVED,
    COMPENSATION_INVALID_STATUS_ORDER_CREATED,
    COMPENSATION_INVALID_STATUS_CANCEL_PENDING,
    COMPENSATION_INVALID_STATUS_PAID,
    COMPENSATION_INVALID_STATUS_CANCELLED,
    COMPENSATION_INVALID_STATUS_COMPENSATED,
    COMPENSATION_INVALID_STATUS_ORDER_REJECTED,
    COMPENSATION_INVALID_STATUS_COMPENSATING,
    COMPENSATION_INVALID_STATUS_MANUAL_REVIEW,
    /** compensate.lua answered a word this version does not know (the word is in the evidence). */
    COMPENSATION_REFUSED_OTHER,

    // payment
    /** Two payments for one order disagree. */
    PAYMENT_CONFLICT,
    /** A second successful payment for one order: refunded. */
    DUPLICATE_PAYMENT,
    /** A payment that succeeded after its order was cancelled: refunded. */
    PAID_AFTER_CANCEL,
    /** A statement entry the engine has no matching record for. */
    STATEMENT_UNMATCHED,
    /** Reading the channel's statement keeps failing. */
    STATEMENT_STALLED,
    /** Cancelling one order keeps failing. */
    CANCEL_STALLED,
    /** Refunding one payment keeps failing. */
    REFUND_STALLED,

    // reconciliation
    /** A SKU's Redis keys are gone. */
    REDIS_KEYS_LOST,
    /** Reservations PostgreSQL holds are missing from Redis. */
    REDIS_RESERVATIONS_LOST,
    /** PostgreSQL's own stock equation does not hold. */
    PG_INVARIANT_BROKEN,
    /** Redis's own counters do not add up. */
    REDIS_INTERNAL_INVARIANT_BROKEN,
    /** Reconciling one SKU keeps failing. */
    RECONCILE_SKU_STALLED,
    /** Redis's committed differs from PostgreSQL's once everything in motion is accounted for. */
    CROSS_SYSTEM_DELTA,
    /** Redis holds more (or fewer) units over its buckets than PostgreSQL's initial stock. */
    SUPPLY_DELTA,
    /** A reservation PostgreSQL marks as ordered has no order. */
    RESERVATION_WITHOUT_ORDER,
    /** Redis shows a reservation in a state the order's cannot be projected onto. */
    PROJECTION_CONFLICT,
    /** PostgreSQL's order is PAID while Redis says COMPENSATED: the unit may be sold twice. */
    PAID_BUT_REDIS_COMPENSATED,
    /** PostgreSQL says COMPENSATED while Redis shows another status (one per status). */
    COMPENSATED_BUT_REDIS_RESERVED,
    COMPENSATED_BUT_REDIS_ORDER_CREATED,
    COMPENSATED_BUT_REDIS_CANCEL_PENDING,
    COMPENSATED_BUT_REDIS_PAID,
    COMPENSATED_BUT_REDIS_CANCELLED,
    COMPENSATED_BUT_REDIS_ORDER_REJECTED,
    COMPENSATED_BUT_REDIS_COMPENSATING,
    COMPENSATED_BUT_REDIS_MANUAL_REVIEW,
    /** PostgreSQL says COMPENSATED while Redis shows a status this version does not know. */
    COMPENSATED_BUT_REDIS_OTHER,

    // the runbook
    /** A reservation frozen by an operator for review. */
    MANUAL_REVIEW;

    /** What compensate.lua's refusal {@code word} (or the worker's own) leaves to a person. */
    public static AnomalyKind compensationRefused(String word) {
        return named("COMPENSATION_" + word.replaceAll("[^A-Z_]", "_"), COMPENSATION_REFUSED_OTHER);
    }

    /** PostgreSQL says COMPENSATED while the Redis hash says {@code redisStatus}. */
    public static AnomalyKind compensatedButRedis(String redisStatus) {
        return named("COMPENSATED_BUT_REDIS_" + redisStatus, COMPENSATED_BUT_REDIS_OTHER);
    }

    /** A quarantined order message, by the consumer's reason. */
    public static AnomalyKind quarantined(String reason) {
        return valueOf("INBOX_" + reason);
    }

    private static AnomalyKind named(String name, AnomalyKind otherwise) {
        return isNamed(name) ? valueOf(name) : otherwise;
    }

    private static boolean isNamed(String name) {
        for (AnomalyKind k : values()) {
            if (k.name().equals(name)) {
                return true;
            }
        }
        return false;
    }
}
