package io.seckill.db;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.UUID;

/** Small conversions every repository needs when it binds parameters or reads rows. */
public final class Sql {

    private Sql() {
    }

    /** A duration as a PostgreSQL interval literal, bound as {@code ?::interval}. */
    public static String interval(Duration d) {
        return d.toMillis() + " milliseconds";
    }

    /** Ids bound as {@code ?::uuid[]}. */
    public static String[] uuids(Collection<UUID> ids) {
        return ids.stream().map(UUID::toString).toArray(String[]::new);
    }

    public static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }

    /** A {@code count(*)} read with queryForObject (never null in practice). */
    public static long count(Long n) {
        return n == null ? 0 : n;
    }
}
