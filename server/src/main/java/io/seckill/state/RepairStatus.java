package io.seckill.state;

/** {@code repair_task.status}. A runner that died leaves RUNNING claimable again after a minute. */
public enum RepairStatus implements Lifecycle<RepairStatus> {
    PENDING,
    RUNNING,
    DONE,
    FAILED;
}
