package io.seckill.inbox;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code message_quarantine} and the anomaly it raises: a message whose id is known
 * with a different payload, or that cannot be read at all, is kept here for a human - never
 * processed, never "success".
 */
@Repository
public class QuarantineRepository {

    private static final String INSERT = """
            INSERT INTO message_quarantine (consumer_group, topic, message_id, broker_msg_id, reason, payload,
                                            payload_hash, existing_hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """;
    private static final String ANOMALY = """
            INSERT INTO reconcile_anomaly (anomaly_type, object_type, object_id, evidence)
            VALUES (?, 'MESSAGE', ?, jsonb_build_object('consumer_group', ?::text, 'topic', ?::text,
                    'broker_msg_id', ?::text, 'reason', ?::text))
            """;
    private static final String COUNT = "SELECT count(*) FROM message_quarantine WHERE message_id = ?";

    private final JdbcTemplate jdbc;

    QuarantineRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public void quarantine(String group, String topic, String messageId, String brokerMsgId, String reason, byte[] payload,
            byte[] payloadHash, byte[] existingHash) {
        jdbc.update(INSERT, group, topic, messageId, brokerMsgId, reason, payload, payloadHash, existingHash);
        jdbc.update(ANOMALY, "INBOX_" + reason, messageId, group, topic, brokerMsgId, reason);
    }

    public long count(String messageId) {
        Long n = jdbc.queryForObject(COUNT, Long.class, messageId);
        return n == null ? 0 : n;
    }
}
