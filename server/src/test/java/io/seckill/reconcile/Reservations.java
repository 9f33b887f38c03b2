package io.seckill.reconcile;

import io.seckill.reservation.Judged;
import io.seckill.state.OrderStatus;
import io.seckill.state.ReservationStatus;
import io.seckill.state.TaskStatus;
import java.util.UUID;

/** Reservations as reconciliation reads them, for the rules' tests. */
final class Reservations {

    private Reservations() {}

    static Judged withOrder(ReservationStatus status, OrderStatus order) {
        return new Judged(
                UUID.randomUUID(),
                7,
                status,
                3,
                order == null ? null : UUID.randomUUID(),
                order,
                null,
                null,
                false,
                UUID.randomUUID(),
                UUID.randomUUID());
    }

    static Judged withTask(ReservationStatus status, TaskStatus task, boolean leaseExpired) {
        return new Judged(
                UUID.randomUUID(),
                7,
                status,
                3,
                null,
                null,
                task == null ? null : UUID.randomUUID(),
                task,
                leaseExpired,
                UUID.randomUUID(),
                UUID.randomUUID());
    }
}
