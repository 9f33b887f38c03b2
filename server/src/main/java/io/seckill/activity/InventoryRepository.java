package io.seckill.activity;

import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code sku_inventory}. Stock moves only through guarded UPDATEs whose WHERE clause
 * carries the condition (DESIGN.md §9.3); the row count is the answer.
 */
@Repository
class InventoryRepository {

    private static final String INSERT = """
            INSERT INTO sku_inventory (activity_id, sku_id, price, redis_buckets, initial_stock, available_stock)
            VALUES (?, ?, ?, ?, ?, ?)
            """;
    private static final String SELECT = """
            SELECT activity_id, sku_id, price, redis_buckets, initial_stock, available_stock, occupied_stock, sold_stock
            FROM sku_inventory
            """;
    /** Takes {@code n} units at once; refused (0 rows) unless all {@code n} are available. */
    private static final String OCCUPY = move("available_stock", "occupied_stock");
    /** Gives back units occupied in the same transaction (the user already had an order). */
    private static final String RESTORE = move("occupied_stock", "available_stock");
    /** A paid order's unit moves from occupied to sold (DESIGN.md §6.5). */
    private static final String SELL = move("occupied_stock", "sold_stock");
    /** A cancelled order's unit goes back to available. */
    private static final String RELEASE = move("occupied_stock", "available_stock");

    /** A stock adjustment: initial and available move by the delta; refused when available would go below zero. */
    private static final String ADJUST = """
            UPDATE sku_inventory
            SET initial_stock = initial_stock + ?, available_stock = available_stock + ?, version = version + 1,
                updated_at = clock_timestamp()
            WHERE activity_id = ? AND sku_id = ? AND available_stock + ? >= 0
            """;

    private static final RowMapper<SkuInventory> ROW = (rs, i) -> new SkuInventory(
            rs.getLong(1),
            rs.getLong(2),
            rs.getBigDecimal(3),
            rs.getInt(4),
            rs.getInt(5),
            rs.getInt(6),
            rs.getInt(7),
            rs.getInt(8));

    private final JdbcTemplate jdbc;

    InventoryRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    void insert(long activityId, long skuId, BigDecimal price, int buckets, int stock) {
        jdbc.update(INSERT, activityId, skuId, price, buckets, stock, stock);
    }

    List<SkuInventory> forActivity(long activityId) {
        return jdbc.query(SELECT + " WHERE activity_id = ? ORDER BY sku_id", ROW, activityId);
    }

    Optional<SkuInventory> forSku(long activityId, long skuId) {
        return jdbc.query(SELECT + " WHERE activity_id = ? AND sku_id = ?", ROW, activityId, skuId).stream()
                .findFirst();
    }

    /** @return true when all {@code n} units were taken */
    boolean occupy(long activityId, long skuId, int n) {
        return moved(OCCUPY, activityId, skuId, n);
    }

    boolean restore(long activityId, long skuId, int n) {
        return moved(RESTORE, activityId, skuId, n);
    }

    /** occupied - 1, sold + 1; false when nothing is occupied (the caller's transaction must not go on). */
    boolean sell(long activityId, long skuId) {
        return moved(SELL, activityId, skuId, 1);
    }

    /** occupied - 1, available + 1; false when nothing is occupied. */
    boolean release(long activityId, long skuId) {
        return moved(RELEASE, activityId, skuId, 1);
    }

    /**
     * {@code n} units from one stock column to another, in one guarded statement: refused (0 rows)
     * unless the source holds all {@code n}, so no column ever goes below zero.
     */
    private static String move(String from, String to) {
        return "UPDATE sku_inventory SET " + from + " = " + from + " - ?, " + to + " = " + to + " + ?, "
                + "version = version + 1, updated_at = clock_timestamp() "
                + "WHERE activity_id = ? AND sku_id = ? AND " + from + " >= ?";
    }

    private boolean moved(String sql, long activityId, long skuId, int n) {
        return single(jdbc.update(sql, n, n, activityId, skuId, n), activityId, skuId);
    }

    boolean adjust(long activityId, long skuId, int delta) {
        return single(jdbc.update(ADJUST, delta, delta, activityId, skuId, delta), activityId, skuId);
    }

    private static boolean single(int rows, long activityId, long skuId) {
        if (rows > 1) {
            throw new IllegalStateException(
                    "sku_inventory " + activityId + "/" + skuId + " update touched " + rows + " rows");
        }
        return rows == 1;
    }
}
