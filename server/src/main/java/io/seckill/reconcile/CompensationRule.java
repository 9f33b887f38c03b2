package io.seckill.reconcile;

import io.seckill.anomaly.AnomalyKind;
import io.seckill.compensation.CompensationTasks;
import io.seckill.compensation.CompensationWorker;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.Judged;
import io.seckill.state.HashStatus;
import io.seckill.state.ReservationStatus;
import io.seckill.state.TaskStatus;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * Compensation (DESIGN.md §8, §13.5): a rejected reservation's unit goes back to Redis through exactly one task.
 * A rejection without its task gets one; a task whose Redis half ran but whose PostgreSQL half did not is
 * finished under a claim; a compensation whose Redis write a failover lost runs compensate.lua again (idempotent
 * by its marker); any other Redis state of a compensated reservation is an anomaly.
 */
@Component
class CompensationRule implements ReservationRule {

    static final String TASK_EXISTS = "TASK_EXISTS";

    private final CompensationTasks tasks;
    private final CompensationWorker compensation;

    CompensationRule(CompensationTasks tasks, CompensationWorker compensation) {
        this.tasks = tasks;
        this.compensation = compensation;
    }

    @Override
    public Set<ReservationStatus> covers() {
        return Set.of(ReservationStatus.ORDER_REJECTED, ReservationStatus.COMPENSATING, ReservationStatus.COMPENSATED);
    }

    @Override
    public Finding judge(Judged r, String actual) {
        return judgement(r, actual);
    }

    static Finding judgement(Judged r, String actual) {
        String compensated = HashStatus.COMPENSATED.name();
        return switch (r.status()) {
            case ORDER_REJECTED -> r.taskId() == null ? ensureTask(r) : Finding.AGREES;
            case COMPENSATING -> {
                if (r.taskId() == null) {
                    yield ensureTask(r);
                }
                boolean taskIdle = r.taskStatus() == TaskStatus.RETRY
                        || r.taskStatus() == TaskStatus.PENDING
                        || (r.taskStatus() == TaskStatus.CLAIMED && r.taskLeaseExpired());
                yield compensated.equals(actual) && taskIdle
                        ? new Finding.Repair(
                                RepairKind.FINISH_COMPENSATION,
                                compensated,
                                "Redis already compensated; PostgreSQL still COMPENSATING")
                        : Finding.AGREES;
            }
            case COMPENSATED -> {
                if (r.taskId() != null
                        && (HashStatus.RESERVED.name().equals(actual)
                                || HashStatus.ORDER_REJECTED.name().equals(actual))) {
                    // a failover lost compensate.lua's write: the unit is held in Redis for a reservation that ended
                    // (live recalibration would wait for it for ever)
                    yield new Finding.Repair(
                            RepairKind.REAPPLY_COMPENSATION,
                            compensated,
                            "PostgreSQL says COMPENSATED, Redis still holds the unit (" + actual + ")");
                }
                yield actual != null && !compensated.equals(actual)
                        ? new Finding.Anomaly(AnomalyKind.compensatedButRedis(actual), compensated)
                        : Finding.AGREES;
            }
            default -> Finding.AGREES;
        };
    }

    private static Finding ensureTask(Judged r) {
        return new Finding.Repair(
                RepairKind.ENSURE_COMPENSATION_TASK, TASK_EXISTS, r.status() + " without a compensation task");
    }

    @Override
    public String repair(SkuSlot slot, Judged r, String actual, Finding.Repair repair) {
        return switch (repair.kind()) {
            case ENSURE_COMPENSATION_TASK -> {
                String task = "task " + CompensationTasks.taskId(r.reservationId());
                yield tasks.insertRelease(List.of(r.reservationId())) == 1 ? task : Repairs.ALREADY + ": " + task;
            }
            case FINISH_COMPENSATION -> {
                String owner = Reconciler.OPERATOR + "-" + UUID.randomUUID();
                CompensationTasks.Claimed claimed = tasks.claim(r.taskId(), owner, Duration.ofSeconds(30))
                        .orElseThrow(() -> new IllegalStateException("task " + r.taskId() + " could not be claimed"));
                compensation.apply(claimed, owner);
                yield "task " + r.taskId() + " finished through the compensation worker";
            }
            case REAPPLY_COMPENSATION -> compensation.reapply(slot, r.reservationId(), r.taskId());
            default -> throw new IllegalArgumentException("not a compensation repair: " + repair.kind());
        };
    }
}
