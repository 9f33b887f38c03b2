package io.seckill.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.json.Json;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * A queue's batch claim planned and run on a copy of the queue's table ({@code LIKE ... INCLUDING ALL}:
 * the same columns, constraints and partial indexes), so that the application's own workers, which
 * claim from the real table all the while, neither take the test's rows nor add their own.
 */
public record ClaimPlans(JdbcTemplate jdbc, TransactionTemplate tx) {

    /** A fresh, empty copy of {@code table} named {@code plan_<table>}, left alone by autovacuum; its name. */
    public String copy(String table) {
        String copy = "plan_" + table;
        jdbc.execute("DROP TABLE IF EXISTS " + copy);
        jdbc.execute("CREATE TABLE " + copy + " (LIKE " + table + " INCLUDING ALL) WITH (autovacuum_enabled = off)");
        return copy;
    }

    public void drop(String copy) {
        jdbc.execute("DROP TABLE " + copy);
    }

    /** {@code test} given a fresh copy of {@code table} ({@link #copy}), dropped afterwards whatever happens. */
    public void inCopyOf(String table, Consumer<String> test) {
        String copy = copy(table);
        try {
            test.accept(copy);
        } finally {
            drop(copy);
        }
    }

    /**
     * A retried queue's claim of {@code batch} ({@code claim} binds the limit, an owner and the lease) on
     * {@code copy}, analyzed first: no scan reads more than twice the batch, and run it takes the
     * {@code expired} leases, none of the {@code live} ones, and the oldest {@code waiting} rows after them.
     */
    public void assertClaimsItsBatch(
            String copy, String claim, int batch, List<UUID> expired, List<UUID> live, List<UUID> waiting) {
        jdbc.execute("ANALYZE " + copy);
        assertThat(mostRowsOneScanRead(copy, claim, batch, "plan-worker", "30 seconds"))
                .as("rows one scan of %s read for a claim of %d", copy, batch)
                .isLessThanOrEqualTo(2L * batch);
        assertThat(claim(claim, batch, "plan-worker", "30 seconds"))
                .hasSize(batch)
                .containsAll(expired)
                .doesNotContainAnyElementsOf(live)
                .containsAll(waiting.subList(0, batch - expired.size()));
    }

    /**
     * The most rows any one scan of {@code relation} looked at (returned or removed by its filter, over
     * all its loops) when {@code sql} ran under {@code EXPLAIN ANALYZE}, rolled back.
     */
    public long mostRowsOneScanRead(String relation, String sql, Object... args) {
        return tx.execute(s -> {
            String plan = jdbc.queryForObject("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, String.class, args);
            s.setRollbackOnly();
            return mostRows(Json.MAPPER.readTree(plan).get(0).get("Plan"), relation);
        });
    }

    /** The claim run for real; the ids it returns first in each row. */
    public List<UUID> claim(String sql, Object... args) {
        return jdbc.query(sql, (rs, i) -> rs.getObject(1, UUID.class), args);
    }

    private static long mostRows(JsonNode node, String relation) {
        long most = 0;
        if (relation.equals(node.path("Relation Name").asString(""))
                && node.path("Node Type").asString("").contains("Scan")) {
            long seen = node.path("Actual Rows").asLong()
                    + node.path("Rows Removed by Filter").asLong()
                    + node.path("Rows Removed by Index Recheck").asLong();
            most = seen * Math.max(1, node.path("Actual Loops").asLong());
        }
        for (JsonNode child : node.path("Plans")) {
            most = Math.max(most, mostRows(child, relation));
        }
        return most;
    }
}
