package io.seckill.reservation;

import io.seckill.state.OrderStatus;
import io.seckill.state.ReservationStatus;
import io.seckill.state.TaskStatus;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * One reservation as reconciliation judges it: its row, its order and its compensation task, read
 * together in one statement.
 */
public record Judged(
        UUID reservationId,
        long userId,
        ReservationStatus status,
        long version,
        UUID orderId,
        OrderStatus orderStatus,
        UUID taskId,
        TaskStatus taskStatus,
        boolean taskLeaseExpired,
        UUID requestId,
        UUID messageId) {

    /** Where a change window stopped: the last (updated_at, id) judged. */
    public record Cursor(Instant changedAt, UUID id) {
        public static final Cursor START = new Cursor(Instant.EPOCH, new UUID(0, 0));
    }

    /** A page of a change window: the rows and the cursor after the last of them. */
    public record Page(List<Judged> rows, Cursor next) {}
}
