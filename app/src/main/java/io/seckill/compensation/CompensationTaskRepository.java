package io.seckill.compensation;

import java.util.List;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

import io.seckill.reservation.ReservationIds;

/**
 * The SQL of {@code compensation_task} (design 9.4, 9.7): the durable decision that a Redis
 * reservation may be released, one task per reservation (unique idempotency key).
 */
@Repository
public class CompensationTaskRepository {

    public static final String RELEASE_REDIS_RESERVATION = "RELEASE_REDIS_RESERVATION";

    private static final String INSERT = """
            INSERT INTO compensation_task (task_id, reservation_id, compensation_type, idempotency_key)
            SELECT t, r, 'RELEASE_REDIS_RESERVATION', 'RELEASE_REDIS_RESERVATION:' || r::text
            FROM unnest(?::uuid[], ?::uuid[]) AS x(t, r)
            ON CONFLICT (idempotency_key) DO NOTHING
            """;

    private final JdbcTemplate jdbc;

    CompensationTaskRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public static UUID taskId(UUID reservationId) {
        return ReservationIds.derived(RELEASE_REDIS_RESERVATION, reservationId);
    }

    /** Inside the rejecting transaction: one release task per reservation. */
    public void insertRelease(List<UUID> reservationIds) {
        if (reservationIds.isEmpty()) {
            return;
        }
        String[] t = reservationIds.stream().map(r -> taskId(r).toString()).toArray(String[]::new);
        String[] r = reservationIds.stream().map(UUID::toString).toArray(String[]::new);
        jdbc.update(INSERT, t, r);
    }
}
