package io.seckill.reconcile;

import io.seckill.anomaly.AnomalyKind;

/** What a reservation rule concluded about one reservation: nothing to do, an anomaly for a person, or a repair. */
sealed interface Finding {

    /** PostgreSQL and Redis agree, or the reservation is another worker's (or a person's) to move. */
    Finding AGREES = new Agrees();

    record Agrees() implements Finding {}

    /**
     * {@code kind} is the anomaly's kind; {@code expected} the Redis status PostgreSQL implies (evidence);
     * {@code holdReason}, when not null, also freezes the reservation for a person.
     */
    record Anomaly(AnomalyKind kind, String expected, String holdReason) implements Finding {
        Anomaly(AnomalyKind kind, String expected) {
            this(kind, expected, null);
        }
    }

    /** {@code target}: the state the repair brings the object to (part of the repair task's identity). */
    record Repair(RepairKind kind, String target, String reason) implements Finding {}
}
