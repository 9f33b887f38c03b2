package io.seckill.compensation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;

/**
 * The compensation feature's face to the others: a release task per rejected reservation, claimed under a lease
 * by whoever runs it (the worker, the reconciler, a person through the runbook), frozen while a person holds its
 * reservation. Its table is reached only here and by the worker.
 */
@Service
public class CompensationTasks {

    /** A task claimed under a lease: the task, its reservation, and which attempt this is. */
    public record Claimed(UUID taskId, UUID reservationId, int attempt) {}

    private final CompensationTaskRepository repo;

    CompensationTasks(CompensationTaskRepository repo) {
        this.repo = repo;
    }

    /** The release task's id of a reservation (one per reservation, derived from it). */
    public static UUID taskId(UUID reservationId) {
        return CompensationTaskRepository.taskId(reservationId);
    }

    /** Inside a rejecting transaction: one release task per reservation; how many were new. */
    public int insertRelease(List<UUID> reservationIds) {
        return repo.insertRelease(reservationIds);
    }

    /** Claims one task for {@code owner} under a lease of {@code lease}; empty when another holds it or it is done. */
    public Optional<Claimed> claim(UUID taskId, String owner, Duration lease) {
        return repo.claim(taskId, owner, lease);
    }

    /** Keeps a held reservation's task from running; how many were frozen. */
    public int freeze(UUID reservationId) {
        return repo.freeze(reservationId);
    }

    /** Lets a released reservation's task run again; how many were unfrozen. */
    public int unfreeze(UUID reservationId) {
        return repo.unfreeze(reservationId);
    }

    /** A sale's tasks not yet applied. */
    public long unsettled(long activityId) {
        return repo.unsettled(activityId);
    }

    /** The reservation a task releases. */
    public Optional<UUID> reservationOf(UUID taskId) {
        return repo.reservationOf(taskId);
    }

    /** A reservation's tasks, as rows (the runbook's lookups). */
    public List<Map<String, Object>> ofReservation(UUID reservationId) {
        return repo.ofReservation(reservationId);
    }
}
