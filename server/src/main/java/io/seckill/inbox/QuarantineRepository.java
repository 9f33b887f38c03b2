package io.seckill.inbox;

import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.state.ObjectKind;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code message_quarantine} and the anomaly it raises: a message whose id is known
 * with a different payload, or that cannot be read at all, is kept here for a human - never
 * processed, never "success".
 */
@Repository
class QuarantineRepository {

    private static final String INSERT = """
            INSERT INTO message_quarantine (consumer_group, topic, message_id, broker_msg_id, reason, payload,
                                            payload_hash, existing_hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """;

    private final JdbcTemplate jdbc;
    private final Anomalies anomalies;

    QuarantineRepository(JdbcTemplate jdbc, Anomalies anomalies) {
        this.jdbc = jdbc;
        this.anomalies = anomalies;
    }

    public void quarantine(
            String group,
            String topic,
            String messageId,
            String brokerMsgId,
            String reason,
            byte[] payload,
            byte[] payloadHash,
            byte[] existingHash) {
        jdbc.update(INSERT, group, topic, messageId, brokerMsgId, reason, payload, payloadHash, existingHash);
        java.util.Map<String, Object> evidence = new java.util.LinkedHashMap<>();
        evidence.put("consumer_group", group);
        evidence.put("topic", topic);
        evidence.put("broker_msg_id", brokerMsgId);
        evidence.put("reason", reason);
        anomalies.record(AnomalyKind.quarantined(reason), ObjectKind.MESSAGE, messageId, null, null, evidence);
    }
}
