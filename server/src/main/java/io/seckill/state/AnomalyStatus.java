package io.seckill.state;

import java.util.EnumSet;
import java.util.Set;

/** {@code reconcile_anomaly.status}. */
public enum AnomalyStatus implements Lifecycle<AnomalyStatus> {
    OPEN,
    RESOLVED;

    @Override
    public Set<AnomalyStatus> next() {
        return this == OPEN ? EnumSet.of(RESOLVED) : EnumSet.noneOf(AnomalyStatus.class);
    }
}
