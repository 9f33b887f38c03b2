package io.seckill.anomaly;

import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

import io.seckill.mq.Json;

/**
 * The SQL of {@code reconcile_anomaly}: what automation will not decide goes here, with its evidence,
 * for a human. At most one open anomaly per (type, object): recording it again changes nothing.
 */
@Repository
public class AnomalyRepository {

    private static final String INSERT = """
            INSERT INTO reconcile_anomaly (anomaly_type, object_type, object_id, activity_id, sku_id, evidence)
            VALUES (?, ?, ?, ?, ?, ?::jsonb)
            ON CONFLICT (anomaly_type, object_id) WHERE status = 'OPEN' DO NOTHING
            """;
    private static final String FOR_OBJECT = """
            SELECT anomaly_id, anomaly_type, object_type, object_id, status, evidence::text, created_at
            FROM reconcile_anomaly WHERE object_id = ANY (?) ORDER BY anomaly_id
            """;

    private final JdbcTemplate jdbc;

    AnomalyRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** @return true when this is a new open anomaly */
    public boolean record(String type, String objectType, String objectId, Long activityId, Long skuId,
            Map<String, ?> evidence) {
        return jdbc.update(INSERT, type, objectType, objectId, activityId, skuId, Json.text(evidence)) == 1;
    }

    public List<Map<String, Object>> forObjects(List<String> objectIds) {
        return jdbc.queryForList(FOR_OBJECT, (Object) objectIds.toArray(String[]::new));
    }
}
