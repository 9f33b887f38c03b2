package io.seckill.compensation;

import io.seckill.outbox.Outbox;
import io.seckill.outbox.OutboxEvent;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * What goes with every durable rejection of a reservation, written once: a release task (the
 * decision that its Redis unit may come back) and the event that asks for it, both inside the
 * rejecting transaction - the order consumer's and the deadline sweeper's alike.
 */
@Component
public class Rejections {

    /** A reservation PostgreSQL now holds as rejected. */
    public record Rejected(java.util.UUID reservationId, long activityId, long skuId, long userId) {}

    private final CompensationTaskRepository tasks;
    private final Outbox outbox;

    Rejections(CompensationTaskRepository tasks, Outbox outbox) {
        this.tasks = tasks;
        this.outbox = outbox;
    }

    /** Must run inside the transaction that wrote the rejections. */
    public void compensate(List<Rejected> rejected, String reason) {
        if (rejected.isEmpty()) {
            return;
        }
        tasks.insertRelease(rejected.stream().map(Rejected::reservationId).toList());
        outbox.append(
                "RESERVATION",
                OutboxEvent.RESERVATION_COMPENSATE_REQUIRED,
                rejected.stream()
                        .map(r -> OutboxEvent.compensateRequired(
                                r.reservationId(),
                                r.activityId(),
                                r.skuId(),
                                r.userId(),
                                reason,
                                CompensationTaskRepository.taskId(r.reservationId())))
                        .toList());
    }
}
