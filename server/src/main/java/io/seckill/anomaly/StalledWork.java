package io.seckill.anomaly;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.state.ObjectKind;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * What a background worker says when one unit of work keeps failing: past its bound the unit becomes
 * an open anomaly with its evidence and {@code work_stalled_total{worker,type}} counts it, once per
 * unit (an open anomaly of the same type and object is not recorded again). The worker goes on
 * retrying with capped backoff - a transient outage heals by itself - so stalled is an alert for a
 * human, never a silent give-up and never a state change.
 */
@Component
public class StalledWork {

    private static final Logger log = LoggerFactory.getLogger(StalledWork.class);

    private final Anomalies anomalies;
    private final MeterRegistry meters;
    private final int alertAfterAttempts;

    /** {@code seckill.workers.stall-alert-attempts}: failed attempts of one unit after which a person hears of it. */
    StalledWork(
            Anomalies anomalies,
            MeterRegistry meters,
            @Value("${seckill.workers.stall-alert-attempts:5}") int alertAfterAttempts) {
        if (alertAfterAttempts < 1) {
            throw new IllegalArgumentException("seckill.workers.stall-alert-attempts: must be at least 1");
        }
        this.anomalies = anomalies;
        this.meters = meters;
        this.alertAfterAttempts = alertAfterAttempts;
    }

    /**
     * Reports a failed attempt; from {@code seckill.workers.stall-alert-attempts} attempts on it is an anomaly.
     *
     * @return true when this call opened the anomaly
     */
    public boolean failed(
            String worker,
            AnomalyKind kind,
            ObjectKind objectType,
            String objectId,
            Long activityId,
            Long skuId,
            int attempts,
            String error,
            Map<String, ?> evidence) {
        meters.counter("work.failed", "worker", worker).increment();
        if (attempts < alertAfterAttempts) {
            return false;
        }
        Map<String, Object> e = new LinkedHashMap<>(evidence);
        e.put("worker", worker);
        e.put("attempts", attempts);
        e.put("last_error", error == null ? "" : error.length() > 500 ? error.substring(0, 500) : error);
        boolean opened = anomalies.record(kind, objectType, objectId, activityId, skuId, e);
        if (opened) {
            meters.counter("work.stalled", "worker", worker, "type", kind.name())
                    .increment();
            log.error(
                    "work.stalled worker={} type={} object_type={} object_id={} activity_id={} sku_id={} attempts={}: {} "
                            + "(still retried with backoff)",
                    worker,
                    kind,
                    objectType,
                    objectId,
                    activityId,
                    skuId,
                    attempts,
                    error);
        }
        return opened;
    }
}
