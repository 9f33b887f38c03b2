package io.seckill.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.json.Json;
import io.seckill.state.InboxResult;
import io.seckill.support.IntegrationTest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The inbox's finishing UPDATE reads the batch's own rows and no others, whatever the statistics say:
 * a consumer group that PostgreSQL's statistics do not know yet (a new group, or a table not analyzed
 * since the sale began) must not make every batch read back the whole group.
 */
class InboxFinishPlanIT extends IntegrationTest {

    private static final int GROUP_ROWS = 3_000;
    private static final int BATCH = 50;

    @Autowired
    InboxRepository inbox;

    @Test
    @DisplayName(
            "a batch of 50 finished in a group of 3,000 rows the statistics have never seen reads at most 50 inbox rows, "
                    + "and moves exactly those 50 out of PROCESSING")
    void finishReadsOnlyTheBatch() {
        // statistics taken before the group's rows exist, and not retaken by autovacuum while the test runs
        jdbc.execute("ALTER TABLE consumer_inbox SET (autovacuum_enabled = off)");
        try {
            finishInAGroupTheStatisticsDoNotKnow();
        } finally {
            jdbc.execute("ALTER TABLE consumer_inbox RESET (autovacuum_enabled)");
        }
    }

    private void finishInAGroupTheStatisticsDoNotKnow() {
        // the statistics know one group (as after an earlier sale, or a group that ran before); then a new one fills
        String known = "plan-known-" + UUID.randomUUID();
        String group = "plan-" + UUID.randomUUID();
        claim(known);
        jdbc.execute("ANALYZE consumer_inbox");
        List<UUID> ids = claim(group);
        List<UUID> batch = ids.subList(GROUP_ROWS - BATCH, GROUP_ROWS);
        Map<UUID, InboxResult> codes = new LinkedHashMap<>();
        batch.forEach(id -> codes.put(id, InboxResult.ORDER_CREATED));
        String[] m = batch.stream().map(UUID::toString).toArray(String[]::new);
        String[] c = batch.stream().map(id -> InboxResult.ORDER_CREATED.name()).toArray(String[]::new);
        String[] o = new String[BATCH];

        Long read = tx.execute(s -> {
            String plan = jdbc.queryForObject(
                    "EXPLAIN (ANALYZE, FORMAT JSON) " + InboxRepository.FINISH, String.class, m, c, o, group, m);
            s.setRollbackOnly();
            return inboxRowsRead(Json.MAPPER.readTree(plan).get(0).get("Plan"));
        });
        assertThat(read)
                .as("inbox rows the finishing UPDATE read for a batch of %d", BATCH)
                .isEqualTo(BATCH);

        Integer finished = tx.execute(s -> inbox.finish(group, codes, Map.of()));
        assertThat(finished).isEqualTo(BATCH);
        assertThat(count(
                        "SELECT count(*) FROM consumer_inbox WHERE consumer_group = ? AND result_code = 'PROCESSING'",
                        group))
                .isEqualTo(GROUP_ROWS - BATCH);
        jdbc.update("DELETE FROM consumer_inbox WHERE consumer_group IN (?, ?)", group, known);
    }

    /** {@value #GROUP_ROWS} messages claimed (PROCESSING) for {@code group}; their ids. */
    private List<UUID> claim(String group) {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < GROUP_ROWS; i += 500) {
            List<Inbox.Claim> claims = new ArrayList<>();
            for (int j = 0; j < 500; j++) {
                UUID id = UUID.randomUUID();
                ids.add(id);
                claims.add(new Inbox.Claim(id, UUID.randomUUID(), UUID.randomUUID(), new byte[32]));
            }
            List<UUID> owned = tx.execute(s -> inbox.claim(group, "plan-topic", "OrderCreateRequested", claims));
            assertThat(owned).hasSize(500);
        }
        return ids;
    }

    /** Rows produced by the plan's scans of consumer_inbox, over all their loops. */
    private static long inboxRowsRead(JsonNode node) {
        long n = 0;
        if ("consumer_inbox".equals(node.path("Relation Name").asString(""))
                && node.path("Node Type").asString("").contains("Scan")) {
            n += node.path("Actual Rows").asLong()
                    * Math.max(1, node.path("Actual Loops").asLong());
        }
        for (JsonNode child : node.path("Plans")) {
            n += inboxRowsRead(child);
        }
        return n;
    }
}
