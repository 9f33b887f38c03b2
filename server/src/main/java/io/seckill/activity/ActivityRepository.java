package io.seckill.activity;

import io.seckill.state.Lifecycle;
import io.seckill.state.SaleStatus;
import java.sql.Timestamp;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** The SQL of the {@code activity} table. */
@Repository
class ActivityRepository {

    private static final String INSERT = """
            INSERT INTO activity (activity_id, name, starts_at, ends_at, business_deadline_seconds, payment_timeout_seconds)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (activity_id) DO NOTHING
            """;
    private static final String FIND = """
            SELECT activity_id, name, status, starts_at, ends_at, business_deadline_seconds, payment_timeout_seconds
            FROM activity WHERE activity_id = ?
            """;
    private static final String TRANSITION = """
            UPDATE activity
            SET status = ?, version = version + 1, updated_at = clock_timestamp()
            WHERE activity_id = ? AND status = ANY (?::text[])
            """;

    /**
     * Open and closed sales until a week after the last moment one of their reservations can still be moved by
     * time: a reservation taken at {@code ends_at} meets its business deadline {@code business_deadline_seconds}
     * later, and an order made by then expires {@code payment_timeout_seconds} after that.
     */
    private static final String LIVE = """
            SELECT activity_id, status FROM activity
            WHERE status IN ('OPEN', 'CLOSED')
              AND ends_at + make_interval(secs => business_deadline_seconds::double precision + payment_timeout_seconds)
                  > clock_timestamp() - interval '7 days'
            ORDER BY activity_id
            """;

    /** Every sale's id: what a buyer may name at all (DESIGN.md, Security: unknown sales cost nothing). */
    private static final String IDS = "SELECT activity_id FROM activity";

    private static final String CLOSED_OUT =
            "UPDATE activity SET closed_out_at = clock_timestamp() WHERE activity_id = ?";

    private final JdbcTemplate jdbc;

    ActivityRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    boolean insert(Activity a) {
        return jdbc.update(
                        INSERT,
                        a.activityId(),
                        a.name(),
                        Timestamp.from(a.startsAt()),
                        Timestamp.from(a.endsAt()),
                        a.businessDeadlineSeconds(),
                        a.paymentTimeoutSeconds())
                == 1;
    }

    Optional<Activity> find(long activityId, List<Activity.Sku> skus) {
        return jdbc
                .query(
                        FIND,
                        (rs, i) -> new Activity(
                                rs.getLong(1),
                                rs.getString(2),
                                SaleStatus.valueOf(rs.getString(3)),
                                rs.getTimestamp(4).toInstant(),
                                rs.getTimestamp(5).toInstant(),
                                rs.getInt(6),
                                rs.getInt(7),
                                skus),
                        activityId)
                .stream()
                .findFirst();
    }

    /**
     * Sales that are open, or whose last business deadline and payment timeout passed less than a week ago (their
     * Redis slots may hold reservations to recover, their orders may still expire), with their status.
     */
    Map<Long, SaleStatus> live() {
        Map<Long, SaleStatus> out = new LinkedHashMap<>();
        jdbc.query(LIVE, rs -> {
            out.put(rs.getLong(1), SaleStatus.valueOf(rs.getString(2)));
        });
        return out;
    }

    Set<Long> ids() {
        Set<Long> out = new HashSet<>();
        jdbc.query(IDS, rs -> {
            out.add(rs.getLong(1));
        });
        return out;
    }

    /** Guarded state change: true when this call moved the activity to {@code to} from a state that may move there. */
    boolean transition(long activityId, SaleStatus to) {
        String[] from =
                Lifecycle.sources(SaleStatus.class, to).stream().map(Enum::name).toArray(String[]::new);
        int n = jdbc.update(TRANSITION, to.name(), activityId, from);
        if (n > 1) {
            throw new IllegalStateException("activity " + activityId + " transition touched " + n + " rows");
        }
        return n == 1;
    }

    void closedOut(long activityId) {
        jdbc.update(CLOSED_OUT, activityId);
    }
}
