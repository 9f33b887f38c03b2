package io.seckill.compensation;

import static io.seckill.db.Sql.count;
import static io.seckill.db.Sql.interval;

import io.seckill.db.Backlog;
import io.seckill.db.Sql;
import io.seckill.reservation.ReservationIds;
import io.seckill.retry.Backoff;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code compensation_task} (DESIGN.md §9.4, §9.7): the durable decision that a Redis
 * reservation may be released, one task per reservation (unique idempotency key).
 */
@Repository
class CompensationTaskRepository {

    public static final String RELEASE_REDIS_RESERVATION = "RELEASE_REDIS_RESERVATION";

    private static final String INSERT = """
            INSERT INTO compensation_task (task_id, reservation_id, compensation_type, idempotency_key)
            SELECT t, r, 'RELEASE_REDIS_RESERVATION', 'RELEASE_REDIS_RESERVATION:' || r::text
            FROM unnest(?::uuid[], ?::uuid[]) AS x(t, r)
            ON CONFLICT (idempotency_key) DO NOTHING
            """;

    /** DESIGN.md §9.7 claim, for a batch: due tasks, or tasks whose lease expired, with a lease on the database clock. */
    static final String CLAIM_DUE = Sql.claimBatch(
                    "compensation_task",
                    "t",
                    "task_id",
                    Sql.claimable("CLAIMED"),
                    "next_retry_at, created_at",
                    "status = 'CLAIMED', " + Sql.LEASE
                            + ", attempt_count = t.attempt_count + 1, updated_at = clock_timestamp()",
                    "")
            + "RETURNING t.task_id, t.reservation_id, t.attempt_count";
    /** DESIGN.md §9.7 claim of one task. */
    private static final String CLAIM = """
            UPDATE compensation_task
            SET status = 'CLAIMED', lease_owner = ?, lease_until = clock_timestamp() + ?::interval,
                attempt_count = attempt_count + 1, updated_at = clock_timestamp()
            WHERE task_id = ?
              AND (status IN ('PENDING', 'RETRY') OR (status = 'CLAIMED' AND lease_until < clock_timestamp()))
            RETURNING task_id, reservation_id, attempt_count
            """;

    private static final String MARK_APPLIED = """
            UPDATE compensation_task
            SET status = 'APPLIED', lease_owner = NULL, lease_until = NULL, last_result = ?, last_error = NULL,
                updated_at = clock_timestamp()
            WHERE task_id = ? AND status = 'CLAIMED' AND lease_owner = ?
            """;
    private static final String MARK_RETRY = """
            UPDATE compensation_task
            SET status        = 'RETRY',
                lease_owner = NULL, lease_until = NULL, last_error = ?, updated_at = clock_timestamp(),
                next_retry_at = clock_timestamp() +
            """ + Backoff.SQL_DELAY.formatted("attempt_count") + """
            WHERE task_id = ? AND status = 'CLAIMED' AND lease_owner = ?
            """;
    private static final String MARK_MANUAL = """
            UPDATE compensation_task
            SET status = 'MANUAL', lease_owner = NULL, lease_until = NULL, last_result = ?, last_error = ?,
                updated_at = clock_timestamp()
            WHERE task_id = ? AND status = 'CLAIMED' AND lease_owner = ?
            """;
    private static final String BACKLOG = """
            SELECT count(*), coalesce(extract(epoch FROM clock_timestamp() - min(created_at)), 0)
            FROM compensation_task WHERE status IN ('PENDING', 'RETRY', 'CLAIMED')
            """;

    /** An operator takes a reservation's tasks out of automation. */
    private static final String FREEZE = """
            UPDATE compensation_task SET status = 'MANUAL', lease_owner = NULL, lease_until = NULL,
                   last_result = 'FROZEN', updated_at = clock_timestamp()
            WHERE reservation_id = ? AND status IN ('PENDING', 'CLAIMED', 'RETRY')
            """;
    /** ... and gives them back, runnable at once. */
    private static final String UNFREEZE = """
            UPDATE compensation_task SET status = 'RETRY', next_retry_at = clock_timestamp(), last_result = 'RELEASED',
                   updated_at = clock_timestamp()
            WHERE reservation_id = ? AND status = 'MANUAL'
            """;

    private static final String UNSETTLED = """
            SELECT count(*) FROM compensation_task t JOIN inventory_reservation r ON r.reservation_id = t.reservation_id
            WHERE r.activity_id = ? AND t.status IN ('PENDING', 'CLAIMED', 'RETRY')
            """;
    private static final String RESERVATION_OF = "SELECT reservation_id FROM compensation_task WHERE task_id = ?";
    private static final String OF_RESERVATION = "SELECT * FROM compensation_task WHERE reservation_id = ?";

    private final JdbcTemplate jdbc;

    CompensationTaskRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public static UUID taskId(UUID reservationId) {
        return ReservationIds.derived(RELEASE_REDIS_RESERVATION, reservationId);
    }

    /**
     * Inside the rejecting transaction: one release task per reservation.
     *
     * @return how many tasks were new (a reservation that has its task already keeps it)
     */
    public int insertRelease(List<UUID> reservationIds) {
        if (reservationIds.isEmpty()) {
            return 0;
        }
        String[] t = reservationIds.stream().map(r -> taskId(r).toString()).toArray(String[]::new);
        String[] r = Sql.uuids(reservationIds);
        return jdbc.update(INSERT, t, r);
    }

    public List<CompensationTasks.Claimed> claimDue(int limit, String owner, Duration lease) {
        return jdbc.query(
                CLAIM_DUE,
                (rs, i) -> new CompensationTasks.Claimed(
                        rs.getObject(1, UUID.class), rs.getObject(2, UUID.class), rs.getInt(3)),
                limit,
                owner,
                interval(lease));
    }

    public Optional<CompensationTasks.Claimed> claim(UUID taskId, String owner, Duration lease) {
        return jdbc
                .query(
                        CLAIM,
                        (rs, i) -> new CompensationTasks.Claimed(
                                rs.getObject(1, UUID.class), rs.getObject(2, UUID.class), rs.getInt(3)),
                        owner,
                        interval(lease),
                        taskId)
                .stream()
                .findFirst();
    }

    /** @return false when this owner no longer holds the lease (a newer owner decides) */
    public boolean markApplied(UUID taskId, String owner, String result) {
        return jdbc.update(MARK_APPLIED, result, taskId, owner) == 1;
    }

    /** A transient failure: try again after a capped backoff, for as long as it lasts. */
    public boolean markRetry(UUID taskId, String owner, Backoff backoff, String error) {
        return jdbc.update(MARK_RETRY, error, interval(backoff.base()), interval(backoff.max()), taskId, owner) == 1;
    }

    public int freeze(UUID reservationId) {
        return jdbc.update(FREEZE, reservationId);
    }

    public int unfreeze(UUID reservationId) {
        return jdbc.update(UNFREEZE, reservationId);
    }

    /** A sale's tasks not yet applied. */
    public long unsettled(long activityId) {
        return count(jdbc.queryForObject(UNSETTLED, Long.class, activityId));
    }

    public Optional<UUID> reservationOf(UUID taskId) {
        return jdbc.query(RESERVATION_OF, (rs, i) -> rs.getObject(1, UUID.class), taskId).stream()
                .findFirst();
    }

    /** The reservation's task rows as stored, for an operator's evidence. */
    public List<Map<String, Object>> ofReservation(UUID reservationId) {
        return jdbc.queryForList(OF_RESERVATION, reservationId);
    }

    public boolean markManual(UUID taskId, String owner, String result, String error) {
        return jdbc.update(MARK_MANUAL, result, error, taskId, owner) == 1;
    }

    public Backlog backlog() {
        return jdbc.queryForObject(BACKLOG, Backlog::of);
    }
}
