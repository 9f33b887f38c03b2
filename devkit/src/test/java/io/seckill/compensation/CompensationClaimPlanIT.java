package io.seckill.compensation;

import io.seckill.support.ClaimPlans;
import io.seckill.support.IntegrationTest;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The compensation worker's claim costs its batch, not the task table: the same claim as the outbox
 * relay's ({@code Sql.claimable}), over the verified tasks of earlier sales and a backlog.
 */
class CompensationClaimPlanIT extends IntegrationTest {

    private static final int BATCH = 100;

    @Test
    @DisplayName(
            "a claim of 100 from an analyzed task table of 40,000 verified and 10,000 waiting tasks reads at most 200 "
                    + "rows in any scan; it takes the expired leases first, no live lease, then the oldest waiting tasks")
    void claimReadsItsBatch() {
        ClaimPlans plans = new ClaimPlans(jdbc, tx);
        plans.inCopyOf("compensation_task", table -> {
            fill(table, "VERIFIED", 40_000, null);
            List<UUID> expired = fill(table, "CLAIMED", 30, "-1 minute");
            List<UUID> live = fill(table, "CLAIMED", 30, "1 minute");
            List<UUID> waiting = fill(table, "PENDING", 10_000, null);
            plans.assertClaimsItsBatch(
                    table,
                    CompensationTaskRepository.CLAIM_DUE.replace("compensation_task", table),
                    BATCH,
                    expired,
                    live,
                    waiting);
        });
    }

    /** {@code n} tasks in {@code status}, one after the other in time; with a lease ending {@code leaseFromNow}. */
    private List<UUID> fill(String table, String status, int n, String leaseFromNow) {
        return jdbc.queryForList("""
                INSERT INTO %s (task_id, reservation_id, compensation_type, idempotency_key, status, next_retry_at, created_at,
                                lease_owner, lease_until)
                SELECT gen_random_uuid(), r, 'RELEASE_REDIS_RESERVATION', 'RELEASE_REDIS_RESERVATION:' || r::text, ?,
                       clock_timestamp() + i * interval '1 microsecond', clock_timestamp() + i * interval '1 microsecond',
                       CASE WHEN ?::interval IS NULL THEN NULL ELSE 'another-worker' END, clock_timestamp() + ?::interval
                FROM (SELECT gen_random_uuid() AS r, i FROM generate_series(1, ?) AS i) s
                ORDER BY i
                RETURNING task_id""".formatted(table), UUID.class, status, leaseFromNow, leaseFromNow, n);
    }
}
