package io.seckill.dashboard;

import java.time.Duration;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code instance_meters}: one row per running instance, rewritten every interval. Ages are the
 * database's clock against itself, so no instance's clock decides who counts as live.
 */
@Repository
class FleetRepository {

    private static final String PUBLISH = """
            INSERT INTO instance_meters (instance_id, roles, snapshot, updated_at)
            VALUES (?, ?, ?::jsonb, clock_timestamp())
            ON CONFLICT (instance_id) DO UPDATE
                SET roles = EXCLUDED.roles, snapshot = EXCLUDED.snapshot, updated_at = EXCLUDED.updated_at
            """;
    private static final String LIVE = """
            SELECT instance_id, roles, snapshot::text,
                   (extract(epoch FROM clock_timestamp() - updated_at) * 1000)::bigint AS age_ms
            FROM instance_meters
            WHERE updated_at > clock_timestamp() - ?::interval
            ORDER BY instance_id
            """;
    private static final String PRUNE =
            "DELETE FROM instance_meters WHERE updated_at < clock_timestamp() - ?::interval";

    /** One instance's row: its roles, its figures as JSON, how long ago it wrote them. */
    record Row(String instance, String roles, String snapshot, long ageMs) {}

    private final JdbcTemplate jdbc;

    FleetRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    void publish(String instance, String roles, String snapshotJson) {
        jdbc.update(PUBLISH, instance, roles, snapshotJson);
    }

    /** The instances that wrote within {@code within}. */
    List<Row> live(Duration within) {
        return jdbc.query(
                LIVE,
                (rs, i) -> new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4)),
                within.toMillis() + " milliseconds");
    }

    /** Forgets instances silent for longer than {@code silent}; returns how many. */
    int prune(Duration silent) {
        return jdbc.update(PRUNE, silent.toMillis() + " milliseconds");
    }
}
