package io.seckill.reconcile;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.state.RepairStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Idempotent repairs (DESIGN.md §11.6 step 4, fault row 20): {@code repair_id = SHA-256(rule | object |
 * expected version | target)}, inserted with ON CONFLICT DO NOTHING; the action runs only for the
 * caller that moves the row to RUNNING, and every action is a standard state-machine step.
 */
@Component
public class Repairs {

    private static final Logger log = LoggerFactory.getLogger(Repairs.class);

    /** What became of one repair request. */
    public enum Run {
        /** This caller ran it and it succeeded. */
        DONE,
        /** This caller ran it and it failed (it can be claimed again). */
        FAILED,
        /** Someone else ran (or is running) the same repair. */
        SKIPPED
    }

    /**
     * How a repair's result begins when it found nothing to change: the state machine had converged on
     * its own between the judgement and the repair (the scripts answer ALREADY_PROJECTED and the like).
     */
    public static final String ALREADY = "ALREADY";

    private final RepairRepository repo;
    private final MeterRegistry meters;

    /** The rules reconciliation repairs by itself (DESIGN.md §11.5), each with its false-positive count from the start. */
    static final List<String> AUTOMATIC_RULES = List.of(
            "REBUILD_ORDER_PROJECTION",
            "FINISH_COMPENSATION",
            "ENSURE_COMPENSATION_TASK",
            "OUTBOX_LEASE_RECLAIM",
            "FINISH_STOCK_ADJUSTMENT",
            "REDIS_RECALIBRATION");

    Repairs(RepairRepository repo, MeterRegistry meters) {
        this.repo = repo;
        this.meters = meters;
        AUTOMATIC_RULES.forEach(rule -> meters.counter("reconcile.false.positive", "type", rule));
    }

    public static String repairId(String rule, String objectId, Long expectedVersion, String target) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256")
                    .digest((rule + "|" + objectId + "|" + (expectedVersion == null ? "" : expectedVersion) + "|"
                                    + target)
                            .getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Inserts the repair task and, if this caller claims it, runs {@code action} (which returns a result line). */
    public Run run(
            String rule,
            String objectType,
            String objectId,
            Long expectedVersion,
            String target,
            String operator,
            String reason,
            Map<String, ?> evidence,
            Supplier<String> action) {
        String id = repairId(rule, objectId, expectedVersion, target);
        repo.insert(id, objectType, objectId, rule, expectedVersion, target, operator, reason, evidence);
        if (!repo.claim(id)) {
            return Run.SKIPPED;
        }
        try {
            String result = action.get();
            repo.finish(id, RepairStatus.DONE, result);
            meters.counter("reconcile.auto.repair", "type", rule).increment();
            if (Reconciler.OPERATOR.equals(operator) && result != null && result.startsWith(ALREADY)) {
                // judged a difference that was only work in flight: reconcile_false_positive_total (a watermark too
                // small)
                meters.counter("reconcile.false.positive", "type", rule).increment();
                log.info(
                        "repair.false_positive repair_id={} rule={} object_id={} result={}",
                        id,
                        rule,
                        objectId,
                        result);
            }
            log.info(
                    "repair.done repair_id={} rule={} object_id={} target={} operator={} result={}",
                    id,
                    rule,
                    objectId,
                    target,
                    operator,
                    result);
            return Run.DONE;
        } catch (RuntimeException e) {
            repo.finish(id, RepairStatus.FAILED, e.getClass().getSimpleName() + ": " + e.getMessage());
            meters.counter("reconcile.repair_failed", "type", rule).increment();
            log.error(
                    "repair.failed repair_id={} rule={} object_id={} error_class={}: {}",
                    id,
                    rule,
                    objectId,
                    e.getClass().getName(),
                    e.getMessage());
            return Run.FAILED;
        }
    }

    /** Every repair task about these objects (the runbook's inspection). */
    public List<Map<String, Object>> forObjects(List<String> objectIds) {
        return repo.forObjects(objectIds);
    }

    /** Repair tasks of the last {@code window}, by rule and status (the dashboard). */
    public Map<String, Long> recent(Duration window) {
        return repo.recent(window);
    }
}
