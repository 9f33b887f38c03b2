package io.seckill.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.ClaimPlans;
import io.seckill.support.IntegrationTest;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The relay's two statements on the outbox cost their batch, not the table: with the table analyzed
 * (as autovacuum keeps it) and a day of sent events retained beside a backlog, the claim walks the
 * dispatch index in order and stops at its limit or at the first event not yet due, and the purge
 * finds what is past the retention through the purge index - instead of reading (and, for the claim,
 * sorting) every waiting row, or every row.
 */
class OutboxPlanIT extends IntegrationTest {

    private static final int BATCH = 200;

    private ClaimPlans plans;
    private String table;

    @BeforeEach
    void copyOfTheOutbox() {
        plans = new ClaimPlans(jdbc, tx);
        table = plans.copy("event_outbox");
    }

    @AfterEach
    void dropTheCopy() {
        plans.drop(table);
    }

    @Test
    @DisplayName(
            "a claim of 200 from an analyzed outbox of 40,000 sent and 10,000 waiting events reads at most 400 rows in "
                    + "any scan; it takes the expired leases first, no live lease, then the oldest waiting events")
    void claimReadsItsBatch() {
        fill("SENT", 40_000, null, "0 seconds", "0 seconds");
        List<UUID> expired = fill("SENDING", 50, "-1 minute", null, "0 seconds");
        List<UUID> live = fill("SENDING", 50, "1 minute", null, "0 seconds");
        List<UUID> waiting = fill("PENDING", 10_000, null, null, "0 seconds");
        plans.assertClaimsItsBatch(
                table, OutboxRepository.CLAIM_DUE.replace("event_outbox", table), BATCH, expired, live, waiting);
    }

    @Test
    @DisplayName(
            "through a broker outage (10,000 events backing off, none due) a claim reads at most a few rows and takes none")
    void claimInBackoffReadsNothing() {
        fill("SENT", 40_000, null, "0 seconds", "0 seconds");
        fill("RETRY", 10_000, null, null, "1 minute");
        jdbc.execute("ANALYZE " + table);
        String claim = OutboxRepository.CLAIM_DUE.replace("event_outbox", table);

        assertThat(plans.mostRowsOneScanRead(table, claim, BATCH, "plan-relay", "30 seconds"))
                .as("rows one scan of the outbox read for a claim with nothing due")
                .isLessThanOrEqualTo(10);
        assertThat(plans.claim(claim, BATCH, "plan-relay", "30 seconds")).isEmpty();
    }

    @Test
    @DisplayName(
            "the purge of an analyzed outbox of 40,000 events sent within the retention, 100 past it and 10,000 waiting "
                    + "reads at most 200 rows in any scan and deletes exactly the 100")
    void purgeReadsWhatItDeletes() {
        List<UUID> old = fill("SENT", 100, null, "2 days", "0 seconds");
        fill("SENT", 40_000, null, "1 hour", "0 seconds");
        fill("PENDING", 10_000, null, null, "0 seconds");
        jdbc.execute("ANALYZE " + table);
        String purge = OutboxRepository.PURGE.replace("event_outbox", table);

        assertThat(plans.mostRowsOneScanRead(table, purge, "24 hours", 1000))
                .as("rows one scan of the outbox read to purge")
                .isLessThanOrEqualTo(200);
        assertThat(jdbc.update(purge, "24 hours", 1000)).isEqualTo(old.size());
        assertThat(jdbc.queryForObject(
                        "SELECT count(*) FROM " + table + " WHERE event_id = ANY (?::uuid[])", Long.class, (Object)
                                old.stream().map(UUID::toString).toArray(String[]::new)))
                .isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + table, Long.class))
                .isEqualTo(50_000);
    }

    /**
     * {@code n} events in {@code status}, one after the other in time; with a lease ending {@code leaseFromNow},
     * sent {@code sentAgo}, due {@code dueIn}.
     */
    private List<UUID> fill(String status, int n, String leaseFromNow, String sentAgo, String dueIn) {
        return jdbc.queryForList(
                """
                INSERT INTO %s (event_id, aggregate_type, aggregate_id, event_type, schema_version, message_key, payload, status,
                                next_retry_at, created_at, lease_owner, lease_until, sent_at)
                SELECT gen_random_uuid(), 'ORDER', a, 'ORDER_CREATED', 1, a::text, '{"order_id":"x"}', ?,
                       clock_timestamp() + ?::interval + i * interval '1 microsecond',
                       clock_timestamp() + i * interval '1 microsecond',
                       CASE WHEN ?::interval IS NULL THEN NULL ELSE 'another-relay' END, clock_timestamp() + ?::interval,
                       clock_timestamp() - ?::interval
                FROM (SELECT gen_random_uuid() AS a, i FROM generate_series(1, ?) AS i) s
                ORDER BY i
                RETURNING event_id""".formatted(table), UUID.class, status, dueIn, leaseFromNow, leaseFromNow, sentAgo, n);
    }
}
