package io.seckill.reconcile;

import static io.seckill.db.Sql.interval;

import java.time.Duration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** The SQL of {@code reconcile_lease}: one reconciler at a time across instances, and the database clock. */
@Repository
class ReconcileRepository {

    private static final String TAKE_LEASE = """
            UPDATE reconcile_lease SET owner = ?, lease_until = clock_timestamp() + ?::interval
            WHERE name = 'reconciler' AND (lease_until IS NULL OR lease_until < clock_timestamp() OR owner = ?)
            """;
    private static final String WINDOW_START = "SELECT clock_timestamp() - ?::interval";

    private final JdbcTemplate jdbc;

    ReconcileRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public boolean takeLease(String owner, Duration lease) {
        return jdbc.update(TAKE_LEASE, owner, interval(lease), owner) == 1;
    }

    /** Where change windows begin after a full pass judged everything older than the watermark (database clock). */
    public java.time.Instant windowStart(Duration watermark) {
        return jdbc.queryForObject(WINDOW_START, java.sql.Timestamp.class, interval(watermark))
                .toInstant();
    }
}
