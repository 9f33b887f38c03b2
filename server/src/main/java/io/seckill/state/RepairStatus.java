package io.seckill.state;

import java.util.EnumSet;
import java.util.Set;

/** {@code repair_task.status}. A runner that died leaves RUNNING claimable again after a minute. */
public enum RepairStatus implements Lifecycle<RepairStatus> {
    PENDING,
    RUNNING,
    DONE,
    FAILED;

    @Override
    public Set<RepairStatus> next() {
        return switch (this) {
            case PENDING, FAILED -> EnumSet.of(RUNNING);
            case RUNNING -> EnumSet.of(RUNNING, DONE, FAILED);
            case DONE -> EnumSet.noneOf(RepairStatus.class);
        };
    }
}
