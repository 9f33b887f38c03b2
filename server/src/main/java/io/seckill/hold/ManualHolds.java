package io.seckill.hold;

import io.seckill.state.ObjectKind;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The hold feature's face: takes objects out of automation (DESIGN.md §11.6 step 1) and gives them back, tells
 * who holds what, and writes and reads the audit log of what every person did. Its tables are reached only here.
 */
@Component
public class ManualHolds {

    private static final Logger log = LoggerFactory.getLogger(ManualHolds.class);

    private final HoldRepository repo;

    ManualHolds(HoldRepository repo) {
        this.repo = repo;
    }

    public boolean hold(ObjectKind objectType, String objectId, String previousStatus, String reason, String operator) {
        boolean added = repo.hold(objectType.name(), objectId, previousStatus, reason, operator);
        if (added) {
            log.warn(
                    "manual.hold object_type={} object_id={} previous_status={} operator={} reason={}",
                    objectType,
                    objectId,
                    previousStatus,
                    operator,
                    reason);
        }
        return added;
    }

    /** The holds on these objects, as rows (object_type, object_id, previous_status, reason, operator, created_at). */
    public List<Map<String, Object>> holds(List<String> objectIds) {
        return repo.holds(objectIds);
    }

    /** Gives an object back to automation; the status it had when it was held, if it was held. */
    public Optional<String> release(ObjectKind objectType, String objectId) {
        return repo.release(objectType.name(), objectId);
    }

    /** One person's action, with what it saw before and after and why. */
    public void audit(
            String operator,
            String action,
            ObjectKind objectType,
            String objectId,
            Object before,
            Object after,
            Object evidence,
            String reason) {
        repo.audit(operator, action, objectType.name(), objectId, before, after, evidence, reason);
    }

    /** The audit log of these objects, oldest first. */
    public List<Map<String, Object>> auditFor(List<String> objectIds) {
        return repo.auditFor(objectIds);
    }
}
