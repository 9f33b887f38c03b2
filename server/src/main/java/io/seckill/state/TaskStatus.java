package io.seckill.state;

/**
 * {@code compensation_task.status}. MANUAL is a task frozen by an operator or refused for good;
 * the runbook gives it back as RETRY. VERIFIED is in the schema for a verification pass; no
 * automated move leads there (reconciliation checks applied tasks against Redis instead).
 */
public enum TaskStatus implements Lifecycle<TaskStatus> {
    PENDING,
    /** Claimed under a lease; an expired lease may be claimed again. */
    CLAIMED,
    RETRY,
    APPLIED,
    VERIFIED,
    MANUAL;
}
