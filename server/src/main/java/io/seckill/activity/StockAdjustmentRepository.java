package io.seckill.activity;

import static io.seckill.db.Sql.count;
import static io.seckill.db.Sql.interval;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code stock_adjustment}: an operator's change of a SKU's stock, recorded once per
 * adjustment id in the transaction of its PostgreSQL half, and marked when its Redis half applied.
 */
@Repository
class StockAdjustmentRepository {

    private static final String INSERT = """
            INSERT INTO stock_adjustment (adjustment_id, activity_id, sku_id, delta, reason, operator)
            VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (adjustment_id) DO NOTHING
            """;
    private static final String FIND = """
            SELECT activity_id, sku_id, delta, redis_applied_at IS NOT NULL FROM stock_adjustment WHERE adjustment_id = ?
            """;
    private static final String REDIS_DONE = """
            UPDATE stock_adjustment SET redis_applied_at = clock_timestamp() WHERE adjustment_id = ? AND redis_applied_at IS NULL
            """;
    private static final String PENDING = """
            SELECT adjustment_id FROM stock_adjustment
            WHERE redis_applied_at IS NULL AND created_at < clock_timestamp() - ?::interval
            ORDER BY created_at LIMIT 100
            """;
    private static final String UNAPPLIED = """
            SELECT count(*) FROM stock_adjustment WHERE activity_id = ? AND sku_id = ? AND redis_applied_at IS NULL
            """;

    private final JdbcTemplate jdbc;

    StockAdjustmentRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    record Adjustment(long activityId, long skuId, int delta, boolean redisApplied) {}

    /** @return false when this adjustment id was already recorded */
    boolean insert(UUID id, long activityId, long skuId, int delta, String reason, String operator) {
        return jdbc.update(INSERT, id, activityId, skuId, delta, reason, operator) == 1;
    }

    Optional<Adjustment> find(UUID id) {
        return jdbc
                .query(
                        FIND,
                        (rs, i) -> new Adjustment(rs.getLong(1), rs.getLong(2), rs.getInt(3), rs.getBoolean(4)),
                        id)
                .stream()
                .findFirst();
    }

    void redisDone(UUID id) {
        jdbc.update(REDIS_DONE, id);
    }

    /** Adjustments whose PostgreSQL half committed but whose Redis half was not applied. */
    List<UUID> pending(Duration olderThan) {
        return jdbc.query(PENDING, (rs, i) -> rs.getObject(1, UUID.class), interval(olderThan));
    }

    long unapplied(long activityId, long skuId) {
        return count(jdbc.queryForObject(UNAPPLIED, Long.class, activityId, skuId));
    }
}
