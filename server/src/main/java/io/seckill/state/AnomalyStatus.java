package io.seckill.state;

/** {@code reconcile_anomaly.status}. */
public enum AnomalyStatus implements Lifecycle<AnomalyStatus> {
    OPEN,
    RESOLVED;
}
