package io.seckill.reconcile;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.state.ObjectKind;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Where every reconciliation rule writes what it cannot repair: an anomaly for a person, recorded once per
 * object (a later run finding it again only counts it), with its evidence, a metric and an error log line.
 */
@Component
class Findings {

    private static final Logger log = LoggerFactory.getLogger(Findings.class);

    private final Anomalies anomalies;
    private final MeterRegistry meters;

    Findings(Anomalies anomalies, MeterRegistry meters) {
        this.anomalies = anomalies;
        this.meters = meters;
    }

    void anomaly(
            Tally tally,
            AnomalyKind kind,
            ObjectKind objectType,
            String objectId,
            long activityId,
            long skuId,
            Map<String, ?> evidence) {
        String type = kind.name();
        if (anomalies.record(kind, objectType, objectId, activityId, skuId, evidence)) {
            meters.counter("reconcile.anomaly", "type", type).increment();
            log.error(
                    "reconcile.anomaly type={} object_type={} object_id={} activity_id={} sku_id={} evidence={}",
                    type,
                    objectType,
                    objectId,
                    activityId,
                    skuId,
                    evidence);
        }
        meters.counter("reconcile.manual", "type", type).increment();
        tally.found(type);
    }

    /** Counts a rule's automatic repair on the metric the alerts read. */
    void repaired(Tally tally, String rule) {
        meters.counter("reconcile.auto.repair", "type", rule).increment();
        tally.repaired(rule);
    }
}
