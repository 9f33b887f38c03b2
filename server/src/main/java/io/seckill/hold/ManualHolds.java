package io.seckill.hold;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Takes objects out of automation (DESIGN.md §11.6 step 1) and gives them back. */
@Component
public class ManualHolds {

    private static final Logger log = LoggerFactory.getLogger(ManualHolds.class);

    private final HoldRepository repo;

    ManualHolds(HoldRepository repo) {
        this.repo = repo;
    }

    public boolean hold(String objectType, String objectId, String previousStatus, String reason, String operator) {
        boolean added = repo.hold(objectType, objectId, previousStatus, reason, operator);
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
}
