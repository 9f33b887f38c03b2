package io.seckill.hold;

import io.seckill.json.Json;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** The SQL of {@code manual_hold} and {@code audit_log}: what a person took over, and what every person did. */
@Repository
class HoldRepository {

    private static final String HOLD = """
            INSERT INTO manual_hold (object_type, object_id, previous_status, reason, operator) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (object_type, object_id) DO NOTHING
            """;
    private static final String FIND = """
            SELECT object_type, object_id, previous_status, reason, operator, created_at FROM manual_hold WHERE object_id = ANY (?)
            """;
    private static final String RELEASE =
            "DELETE FROM manual_hold WHERE object_type = ? AND object_id = ? RETURNING previous_status";
    private static final String AUDIT = """
            INSERT INTO audit_log (operator, action, object_type, object_id, before, after, evidence, reason)
            VALUES (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?)
            """;
    private static final String AUDIT_FOR = """
            SELECT audit_id, operator, action, object_type, object_id, before::text, after::text, evidence::text, reason, created_at
            FROM audit_log WHERE object_id = ANY (?) ORDER BY audit_id
            """;

    private final JdbcTemplate jdbc;

    HoldRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public boolean hold(String objectType, String objectId, String previousStatus, String reason, String operator) {
        return jdbc.update(HOLD, objectType, objectId, previousStatus, reason, operator) == 1;
    }

    public List<Map<String, Object>> holds(List<String> objectIds) {
        return jdbc.queryForList(FIND, (Object) objectIds.toArray(String[]::new));
    }

    /** @return the status the object had when it was held, if it was held */
    public Optional<String> release(String objectType, String objectId) {
        return jdbc.query(RELEASE, (rs, i) -> String.valueOf(rs.getString(1)), objectType, objectId).stream()
                .findFirst();
    }

    public void audit(
            String operator,
            String action,
            String objectType,
            String objectId,
            Object before,
            Object after,
            Object evidence,
            String reason) {
        jdbc.update(
                AUDIT,
                operator,
                action,
                objectType,
                objectId,
                Json.text(before),
                Json.text(after),
                Json.text(evidence),
                reason);
    }

    public List<Map<String, Object>> auditFor(List<String> objectIds) {
        return jdbc.queryForList(AUDIT_FOR, (Object) objectIds.toArray(String[]::new));
    }
}
