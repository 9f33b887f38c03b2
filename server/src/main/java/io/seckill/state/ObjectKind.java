package io.seckill.state;

/**
 * What an anomaly, a stall, a repair, a manual hold or an audit row is about ({@code object_type} in PostgreSQL, by
 * name).
 */
public enum ObjectKind {
    /** A reservation, by its id. */
    RESERVATION,
    /** A SKU of a sale, {@code activity:sku}. */
    SKU,
    /** A payment, by its id. */
    PAYMENT,
    /** A message, by its message id. */
    MESSAGE,
    /** An outbox event, by its id. */
    OUTBOX_EVENT,
    /** An order, by its id. */
    ORDER,
    /** A Redis slot of a SKU, {@code activity:sku:bucket}. */
    SLOT,
    /** A Redis server, by its address. */
    REDIS_NODE,
    /** A sale, by its activity id. */
    ACTIVITY,
    /** A consumer group's dead-letter topic, by its name. */
    DLQ,
    /** A call to the operator's API, {@code METHOD path}. */
    API
}
