package io.seckill.bench;

import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The naive baseline's one table, written the way DESIGN.md section 4 describes: check for the
 * request, then insert - with nothing unique but the generated order id.
 */
final class NaiveOrderRepository {

    private static final String TABLE = """
            CREATE TABLE IF NOT EXISTS naive_order (
                order_id    uuid        PRIMARY KEY,
                activity_id bigint      NOT NULL,
                sku_id      bigint      NOT NULL,
                user_id     bigint      NOT NULL,
                request_id  uuid        NOT NULL,
                created_at  timestamptz NOT NULL DEFAULT clock_timestamp());
            CREATE INDEX IF NOT EXISTS naive_order_request ON naive_order (request_id)""";

    private final JdbcTemplate jdbc;

    /** From the application's own JdbcTemplate, which comes after the schema migrations (the table is not theirs). */
    static NaiveOrderRepository of(org.springframework.context.ApplicationContext ctx) {
        return new NaiveOrderRepository(ctx.getBean(JdbcTemplate.class).getDataSource());
    }

    /** Creates the table if needed; every statement has a 1 s timeout, as a request path must. */
    NaiveOrderRepository(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.jdbc.setQueryTimeout(1);
        this.jdbc.execute(TABLE);
    }

    boolean exists(UUID requestId) {
        return Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT EXISTS (SELECT 1 FROM naive_order WHERE request_id = ?)", Boolean.class, requestId));
    }

    void insert(long activityId, long skuId, long userId, UUID requestId) {
        jdbc.update(
                "INSERT INTO naive_order (order_id, activity_id, sku_id, user_id, request_id) VALUES (?, ?, ?, ?, ?)",
                UUID.randomUUID(),
                activityId,
                skuId,
                userId,
                requestId);
    }
}
