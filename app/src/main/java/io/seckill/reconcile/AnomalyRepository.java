package io.seckill.reconcile;

import java.util.Map;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

import io.seckill.mq.Json;

/** The SQL of {@code reconcile_anomaly}: what automation will not decide goes here, with its evidence, for a human. */
@Repository
public class AnomalyRepository {

    private static final String INSERT = """
            INSERT INTO reconcile_anomaly (anomaly_type, object_type, object_id, activity_id, sku_id, evidence)
            VALUES (?, ?, ?, ?, ?, ?::jsonb)
            """;

    private final JdbcTemplate jdbc;

    AnomalyRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public void record(String type, String objectType, String objectId, Long activityId, Long skuId,
            Map<String, ?> evidence) {
        jdbc.update(INSERT, type, objectType, objectId, activityId, skuId, Json.text(evidence));
    }
}
