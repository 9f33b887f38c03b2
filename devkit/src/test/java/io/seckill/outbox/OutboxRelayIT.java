package io.seckill.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.retry.Backoff;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** DESIGN.md §9.5: leases on the database clock, fenced settlement, backoff, MANUAL for what the broker refuses, purge. */
class OutboxRelayIT extends IntegrationTest {

    private static final String INSERT = """
            INSERT INTO event_outbox (event_id, aggregate_type, aggregate_id, event_type, schema_version, message_key, payload,
                                      status, attempt_count, lease_owner, lease_until, sent_at)
            VALUES (?, 'TEST', ?, 'TEST_EVENT', 1, 'k', '{}'::jsonb, ?, ?, ?, clock_timestamp() + ?::interval,
                    clock_timestamp() + ?::interval)
            """;

    @Autowired
    OutboxRepository outbox;

    @Test
    @DisplayName("a relay whose lease expired finds its writes refused; another relay re-claims and sends the event")
    void staleLeaseHolderIsFenced() {
        UUID id = UUID.randomUUID();
        jdbc.update(INSERT, id, id, "SENDING", 1, "stale-relay", "-1 second", "0 seconds");
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> "SENT".equals(status(id)));
        assertThat(outbox.markSent(List.of(id), "stale-relay")).isZero();
        assertThat(outbox.markRetry(
                        id, "stale-relay", new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(5)), "late"))
                .isFalse();
        Map<String, Object> row =
                jdbc.queryForMap("SELECT status, attempt_count, lease_owner FROM event_outbox WHERE event_id = ?", id);
        assertThat(row.get("status")).isEqualTo("SENT");
        assertThat(row.get("attempt_count")).isEqualTo(2);
        assertThat(row.get("lease_owner")).isNull();
    }

    @Test
    @DisplayName("a failed send backs off exponentially while the owner holds the lease, capped, and is never given up")
    void backoffNeverManual() {
        UUID retry = UUID.randomUUID();
        jdbc.update(INSERT, retry, retry, "SENDING", 3, "relay-a", "1 hour", "0 seconds");
        assertThat(outbox.markRetry(retry, "relay-b", new Backoff(Duration.ofHours(1), Duration.ofHours(10)), "x"))
                .isFalse();
        assertThat(outbox.markRetry(
                        retry, "relay-a", new Backoff(Duration.ofHours(1), Duration.ofHours(10)), "broker down"))
                .isTrue();
        Map<String, Object> row = jdbc.queryForMap("""
                SELECT status, last_error, lease_owner,
                       extract(epoch FROM next_retry_at - clock_timestamp()) AS wait
                FROM event_outbox WHERE event_id = ?""", retry);
        assertThat(row.get("status")).isEqualTo("RETRY");
        assertThat(row.get("last_error")).isEqualTo("broker down");
        assertThat(row.get("lease_owner")).isNull();
        // attempt 3: base * 2^(3-1) = 4 hours, capped at 10 hours
        assertThat(((Number) row.get("wait")).doubleValue()).isBetween(4 * 3600 - 60.0, 4 * 3600 + 1.0);

        UUID many = UUID.randomUUID();
        jdbc.update(INSERT, many, many, "SENDING", 40, "relay-a", "1 hour", "0 seconds");
        assertThat(outbox.markRetry(
                        many, "relay-a", new Backoff(Duration.ofHours(1), Duration.ofHours(2)), "still down"))
                .isTrue();
        Map<String, Object> capped = jdbc.queryForMap("""
                SELECT status, extract(epoch FROM next_retry_at - clock_timestamp()) AS wait
                FROM event_outbox WHERE event_id = ?""", many);
        assertThat(capped.get("status"))
                .as("a transient failure is retried, however long it lasts")
                .isEqualTo("RETRY");
        assertThat(((Number) capped.get("wait")).doubleValue()).isBetween(2 * 3600 - 60.0, 2 * 3600 + 1.0);
        jdbc.update("DELETE FROM event_outbox WHERE event_id IN (?, ?)", retry, many);
    }

    @Test
    @DisplayName("sent rows are purged after the retention period, recent ones are kept")
    void purge() {
        UUID old = UUID.randomUUID();
        UUID recent = UUID.randomUUID();
        jdbc.update(INSERT, old, old, "SENT", 1, null, "0 seconds", "-2 days");
        jdbc.update(INSERT, recent, recent, "SENT", 1, null, "0 seconds", "-1 minute");
        outbox.purgeSent(Duration.ofHours(24), 1000);
        assertThat(status(old)).isNull();
        assertThat(status(recent)).isEqualTo("SENT");
    }

    @Test
    @DisplayName(
            "a poison event (a body larger than any message may be) beside a healthy one: the healthy one is sent, "
                    + "the poison one goes MANUAL once - not retried forever - with an OUTBOX_MANUAL anomaly and outbox_manual_total")
    void poisonEventBesideHealthyOne() throws Exception {
        UUID poison = UUID.randomUUID();
        UUID healthy = UUID.randomUUID();
        double before = meters.counter("outbox.manual").count();
        jdbc.update("""
                INSERT INTO event_outbox (event_id, aggregate_type, aggregate_id, event_type, schema_version, message_key, payload)
                VALUES (?, 'TEST', ?, 'TEST_EVENT', 1, 'k', jsonb_build_object('x', repeat('a', 5000000)))""", poison, poison);
        jdbc.update(INSERT, healthy, healthy, "PENDING", 0, null, "0 seconds", "0 seconds");
        try {
            // the counter moves just after the transaction that made the event MANUAL
            Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> "SENT".equals(status(healthy))
                            && "MANUAL".equals(status(poison))
                            && meters.counter("outbox.manual").count() > before);
            assertThat(meters.counter("outbox.manual").count()).isEqualTo(before + 1);
            assertThat(jdbc.queryForObject(
                            "SELECT last_error FROM event_outbox WHERE event_id = ?", String.class, poison))
                    .contains("MQClientException");
            assertThat(count(
                            "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'OUTBOX_MANUAL' AND object_id = ? "
                                    + "AND status = 'OPEN'",
                            poison.toString()))
                    .isEqualTo(1);
            assertThat(client().getText("/actuator/prometheus")).contains("outbox_manual_total");
            assertThat(OutboxRelay.refusedForGood(new org.apache.rocketmq.client.exception.MQClientException(
                            org.apache.rocketmq.remoting.protocol.ResponseCode.SYSTEM_BUSY, "busy")))
                    .as("a busy broker is transient")
                    .isFalse();
        } finally {
            jdbc.update("DELETE FROM event_outbox WHERE event_id IN (?, ?)", poison, healthy);
        }
    }

    @Test
    @DisplayName("the relay's lanes claim side by side, each event sent once; the backlog gauges are read on the "
            + "housekeeping thread and show the waiting events and the oldest one's age")
    void lanesAndBacklogGauges() {
        String batch = UUID.randomUUID().toString();
        jdbc.update("""
                INSERT INTO event_outbox (event_id, aggregate_type, aggregate_id, event_type, schema_version, message_key, payload)
                SELECT gen_random_uuid(), 'TEST', gen_random_uuid(), 'TEST_EVENT', 1, 'k', jsonb_build_object('batch', ?::text)
                FROM generate_series(1, 400)""", batch);
        UUID waiting = UUID.randomUUID();
        jdbc.update(INSERT, waiting, waiting, "RETRY", 1, null, "0 seconds", "0 seconds");
        jdbc.update(
                "UPDATE event_outbox SET next_retry_at = clock_timestamp() + interval '1 hour', "
                        + "created_at = clock_timestamp() - interval '10 minutes' WHERE event_id = ?",
                waiting);
        try {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> count(
                                    "SELECT count(*) FROM event_outbox WHERE payload->>'batch' = ? AND status = 'SENT'",
                                    batch)
                            == 400);
            assertThat(count(
                            "SELECT count(*) FROM event_outbox WHERE payload->>'batch' = ? AND attempt_count <> 1",
                            batch))
                    .as("no event claimed by two lanes")
                    .isZero();
            assertThat(Thread.getAllStackTraces().keySet())
                    .extracting(Thread::getName)
                    .contains("outbox-relay-0", "outbox-relay-1", "outbox-relay-housekeeping");
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(meters.get("outbox.pending").gauge().value()).isGreaterThanOrEqualTo(1);
                assertThat(meters.get("outbox.oldest.age.seconds").gauge().value())
                        .isGreaterThanOrEqualTo(600);
            });
        } finally {
            jdbc.update("DELETE FROM event_outbox WHERE payload->>'batch' = ? OR event_id = ?", batch, waiting);
        }
    }

    private String status(UUID id) {
        return jdbc.query(
                "SELECT status FROM event_outbox WHERE event_id = ?", rs -> rs.next() ? rs.getString(1) : null, id);
    }
}
