package io.seckill.reconcile;

/**
 * The repairs reconciliation makes on its own (DESIGN.md §13.5): the name of each is the repair task's rule
 * ({@code reconcile_repair.rule}), the key of a run's report and the {@code type} of
 * {@code reconcile_auto_repair_total}.
 */
enum RepairKind {
    /** A reservation's Redis hash moved to what its order says, through the projection's scripts. */
    REBUILD_ORDER_PROJECTION,
    /** A rejected reservation without the task that releases its unit gets one. */
    ENSURE_COMPENSATION_TASK,
    /** Redis compensated, PostgreSQL's task did not record it: the worker's last step, under a claim. */
    FINISH_COMPENSATION,
    /** PostgreSQL compensated, a failover lost Redis's half: compensate.lua again, idempotent by its marker. */
    REAPPLY_COMPENSATION,
    /** A bucket transfer taken out of one bucket and never landed: landed, once. */
    FINISH_BUCKET_TRANSFER,
    /** A SKU's Redis counters set from PostgreSQL's (after lost keys, lost reservations or a drift). */
    REDIS_RECALIBRATION,
    /** A slot a recalibration paused and never resumed (its reconciler died): admitting again. */
    RESUME_PAUSED_SLOT,
    /** An index entry whose reservation was gone, resolved once PostgreSQL holds the reservation decided. */
    ORPHAN_RESOLVED,
    /** An outbox event SENDING under an expired lease: back to RETRY. */
    OUTBOX_LEASE_RECLAIM,
    /** An operator's stock adjustment applied in PostgreSQL and not in Redis: its Redis half, once. */
    FINISH_STOCK_ADJUSTMENT,
    /** Not a repair: a rule that failed on one reservation, counted so the run says so; judged again later. */
    RULE_FAILED
}
