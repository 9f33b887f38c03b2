package io.seckill.reconcile;

import static io.seckill.db.Sql.count;

import io.seckill.db.Sql;
import io.seckill.json.Json;
import io.seckill.state.RepairStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code repair_task} ({@link RepairStatus}): every repair is a row whose id is the hash
 * of what it saw - inserted once, run by whoever claims it.
 */
@Repository
class RepairRepository {

    private static final String INSERT = """
            INSERT INTO repair_task (repair_id, object_type, object_id, rule_name, expected_version, target_state,
                                     operator, reason, evidence)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)
            ON CONFLICT (repair_id) DO NOTHING
            """;
    /** Whoever moves it to RUNNING runs it; a runner that died leaves it claimable after a minute. */
    private static final String CLAIM = """
            UPDATE repair_task SET status = 'RUNNING', updated_at = clock_timestamp()
            WHERE repair_id = ?
              AND (status IN ('PENDING', 'FAILED')
                   OR (status = 'RUNNING' AND updated_at < clock_timestamp() - interval '60 seconds'))
            """;

    private static final String FINISH = """
            UPDATE repair_task SET status = ?, result = ?, updated_at = clock_timestamp()
            WHERE repair_id = ? AND status = 'RUNNING' AND ? IN ('DONE', 'FAILED')
            """;
    private static final String DONE = """
            SELECT count(*) FROM repair_task WHERE rule_name = ? AND object_id = ? AND status = 'DONE'
            """;
    private static final String FOR_OBJECTS = "SELECT * FROM repair_task WHERE object_id = ANY (?) ORDER BY created_at";
    private static final String RECENT = """
            SELECT rule_name || ' ' || status, count(*) FROM repair_task
            WHERE created_at > clock_timestamp() - ?::interval
            GROUP BY rule_name, status
            """;

    private final JdbcTemplate jdbc;

    RepairRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public boolean insert(
            String repairId,
            String objectType,
            String objectId,
            String rule,
            Long expectedVersion,
            String target,
            String operator,
            String reason,
            Object evidence) {
        return jdbc.update(
                        INSERT,
                        repairId,
                        objectType,
                        objectId,
                        rule,
                        expectedVersion,
                        target,
                        operator,
                        reason,
                        Json.text(evidence))
                == 1;
    }

    public boolean claim(String repairId) {
        return jdbc.update(CLAIM, repairId) == 1;
    }

    /** RUNNING -> DONE or FAILED with the result line. */
    public void finish(String repairId, RepairStatus status, String result) {
        jdbc.update(
                FINISH,
                status.name(),
                result == null ? null : result.length() > 1000 ? result.substring(0, 1000) : result,
                repairId,
                status.name());
    }

    /** How many times this rule finished on this object. */
    public long done(String rule, String objectId) {
        return count(jdbc.queryForObject(DONE, Long.class, rule, objectId));
    }

    /** Repairs of these objects as stored, for an operator's evidence. */
    public List<Map<String, Object>> forObjects(List<String> objectIds) {
        return jdbc.queryForList(FOR_OBJECTS, (Object) objectIds.toArray(String[]::new));
    }

    /** Repairs started within {@code window}, by rule and status ("REBUILD_ORDER_PROJECTION DONE" -> n). */
    public Map<String, Long> recent(Duration window) {
        return Sql.countsByKey(jdbc, RECENT, Sql.interval(window));
    }
}
