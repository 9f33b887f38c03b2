package io.seckill.anomaly;

import io.seckill.db.Sql;
import io.seckill.json.Json;
import io.seckill.state.ObjectKind;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code reconcile_anomaly}: what automation will not decide goes here, with its evidence,
 * for a human. At most one open anomaly per (type, object): recording it again changes nothing.
 */
@Repository
class AnomalyRepository {

    private static final String INSERT = """
            INSERT INTO reconcile_anomaly (anomaly_type, object_type, object_id, activity_id, sku_id, evidence)
            VALUES (?, ?, ?, ?, ?, ?::jsonb)
            ON CONFLICT (anomaly_type, object_id) WHERE status = 'OPEN' DO NOTHING
            """;
    private static final String FOR_OBJECT = """
            SELECT anomaly_id, anomaly_type, object_type, object_id, status, evidence::text, created_at
            FROM reconcile_anomaly WHERE object_id = ANY (?) ORDER BY anomaly_id
            """;

    private static final String OPEN_OF_TYPES = """
            SELECT anomaly_id, object_id FROM reconcile_anomaly
            WHERE status = 'OPEN' AND anomaly_type = ANY (?) ORDER BY anomaly_id LIMIT ?
            """;
    private static final String RESOLVE = """
            UPDATE reconcile_anomaly
            SET status = 'RESOLVED', resolved_at = clock_timestamp(),
                evidence = evidence || jsonb_build_object('resolution', ?::text)
            WHERE anomaly_id = ? AND status = 'OPEN'
            """;
    private static final String IS_OPEN = """
            SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = ? AND object_id = ? AND status = 'OPEN'
            """;
    private static final String RESOLVE_OBJECT = """
            UPDATE reconcile_anomaly
            SET status = 'RESOLVED', resolved_at = clock_timestamp(),
                evidence = evidence || jsonb_build_object('resolution', ?::text)
            WHERE anomaly_type = ? AND object_id = ? AND status = 'OPEN'
            """;

    private static final String OPEN_BY_TYPE = """
            SELECT anomaly_type, count(*) FROM reconcile_anomaly WHERE activity_id = ? AND status = 'OPEN' GROUP BY 1 ORDER BY 1
            """;

    private static final String OLDEST_OPEN_AGE = """
            SELECT coalesce(extract(epoch FROM clock_timestamp() - min(created_at)), 0)
            FROM reconcile_anomaly WHERE status = 'OPEN'
            """;

    private final JdbcTemplate jdbc;

    AnomalyRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** @return true when this is a new open anomaly */
    public boolean record(
            AnomalyKind kind,
            ObjectKind objectType,
            String objectId,
            Long activityId,
            Long skuId,
            Map<String, ?> evidence) {
        return jdbc.update(INSERT, kind.name(), objectType.name(), objectId, activityId, skuId, Json.text(evidence))
                == 1;
    }

    /** Open anomalies of the given types, oldest first. */
    public List<Anomalies.Open> open(List<AnomalyKind> kinds, int limit) {
        return jdbc.query(
                OPEN_OF_TYPES,
                (rs, i) -> new Anomalies.Open(rs.getLong(1), rs.getString(2)),
                kinds.stream().map(AnomalyKind::name).toArray(String[]::new),
                limit);
    }

    /** Closes an open anomaly that automation has shown to be harmless, with the reason in its evidence. */
    public boolean resolve(long anomalyId, String resolution) {
        return jdbc.update(RESOLVE, resolution, anomalyId) == 1;
    }

    /** An anomaly of this type is open on this object. */
    public boolean isOpen(AnomalyKind kind, String objectId) {
        return Sql.count(jdbc.queryForObject(IS_OPEN, Long.class, kind.name(), objectId)) > 0;
    }

    /** Closes the open anomaly of this type on this object, if any, once automation has repaired it. */
    public boolean resolve(AnomalyKind kind, String objectId, String resolution) {
        return jdbc.update(RESOLVE_OBJECT, resolution, kind.name(), objectId) == 1;
    }

    /** How long the oldest open anomaly has waited for a person, in seconds (0 when none is open). */
    public double oldestOpenAgeSeconds() {
        Double age = jdbc.queryForObject(OLDEST_OPEN_AGE, Double.class);
        return age == null ? 0 : age;
    }

    /** A sale's open anomalies by type. */
    public Map<String, Long> openByType(long activityId) {
        return Sql.countsByKey(jdbc, OPEN_BY_TYPE, activityId);
    }

    public List<Map<String, Object>> forObjects(List<String> objectIds) {
        return jdbc.queryForList(FOR_OBJECT, (Object) objectIds.toArray(String[]::new));
    }
}
