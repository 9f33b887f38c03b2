package io.seckill.anomaly;

import io.seckill.state.ObjectKind;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Service;

/**
 * The anomaly feature's face: what automation will not decide, recorded for a person once per (kind, object) with
 * its evidence, closed when automation shows it harmless or repairs it, and read by the runbook, the dashboard and
 * the alerts. Its table is reached only here.
 */
@Service
public class Anomalies {

    /** An open anomaly: its id and the object it is about. */
    public record Open(long anomalyId, String objectId) {}

    private final AnomalyRepository repo;

    Anomalies(AnomalyRepository repo) {
        this.repo = repo;
    }

    /** @return true when this is a new open anomaly (recording an open one again changes nothing) */
    public boolean record(
            AnomalyKind kind,
            ObjectKind objectType,
            String objectId,
            Long activityId,
            Long skuId,
            Map<String, ?> evidence) {
        return repo.record(kind, objectType, objectId, activityId, skuId, evidence);
    }

    /** Open anomalies of the given kinds, oldest first. */
    public List<Open> open(List<AnomalyKind> kinds, int limit) {
        return repo.open(kinds, limit);
    }

    /** Closes an open anomaly that automation has shown to be harmless, with the reason in its evidence. */
    public boolean resolve(long anomalyId, String resolution) {
        return repo.resolve(anomalyId, resolution);
    }

    /** An anomaly of this kind is open on this object. */
    public boolean isOpen(AnomalyKind kind, String objectId) {
        return repo.isOpen(kind, objectId);
    }

    /** Closes the open anomaly of this kind on this object, if any, once automation has repaired it. */
    public boolean resolve(AnomalyKind kind, String objectId, String resolution) {
        return repo.resolve(kind, objectId, resolution);
    }

    /** How long the oldest open anomaly has waited for a person, in seconds (0 when none is open). */
    public double oldestOpenAgeSeconds() {
        return repo.oldestOpenAgeSeconds();
    }

    /** A sale's open anomalies by kind. */
    public Map<String, Long> openByType(long activityId) {
        return repo.openByType(activityId);
    }

    /** Every anomaly, open or closed, about these objects (the runbook's inspection). */
    public List<Map<String, Object>> forObjects(List<String> objectIds) {
        return repo.forObjects(objectIds);
    }
}
