package io.seckill.db;

import java.sql.ResultSet;
import java.sql.SQLException;

/** A queue in a table, as its gauges show it: how many rows wait, and how long the oldest has waited. */
public record Backlog(long pending, double oldestAgeSeconds) {

    /** Read from a row of {@code (count, age in seconds)}. */
    public static Backlog of(ResultSet rs, int row) throws SQLException {
        return new Backlog(rs.getLong(1), rs.getDouble(2));
    }
}
