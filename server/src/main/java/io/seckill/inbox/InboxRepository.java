package io.seckill.inbox;

import io.seckill.db.Sql;
import io.seckill.state.InboxResult;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of {@code consumer_inbox} (DESIGN.md §9.2): the insert comes first in the consuming
 * transaction, and the unique (consumer_group, message_id) key decides who owns a message.
 */
@Repository
class InboxRepository {

    private static final String CLAIM = """
            INSERT INTO consumer_inbox (consumer_group, message_id, topic, event_type, reservation_id, request_id,
                                        payload_hash, result_code)
            SELECT ?, m, ?, ?, r, q, decode(h, 'hex'), 'PROCESSING'
            FROM unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::text[]) AS t(m, r, q, h)
            ON CONFLICT (consumer_group, message_id) DO NOTHING
            RETURNING message_id
            """;
    private static final String FIND = """
            SELECT message_id, payload_hash, result_code, order_id
            FROM consumer_inbox
            WHERE consumer_group = ? AND message_id = ANY (?::uuid[])
            """;
    /**
     * The ids are also given as {@code message_id = ANY (...)}: the index is then searched for exactly
     * the batch's keys whatever the statistics say. Joined to the unnest alone, a group the statistics
     * do not know yet (a new group, a table not analyzed since the sale began) is planned as "one row":
     * every row of the group read back for each batch, a cost that grows with the sale.
     */
    static final String FINISH = """
            UPDATE consumer_inbox i
            SET result_code = t.c, order_id = t.o, processed_at = clock_timestamp()
            FROM unnest(?::uuid[], ?::text[], ?::uuid[]) AS t(m, c, o)
            WHERE i.consumer_group = ? AND i.message_id = ANY (?::uuid[]) AND i.message_id = t.m
              AND i.result_code = 'PROCESSING'
            """;

    /**
     * A reservation's inbox rows, through the primary key: the reservation row names its message, and the groups the
     * inbox holds are walked one index probe each (the inbox has no index by reservation, and it keeps a row for every
     * message of every sale). A committed inbox row always comes with its reservation row, naming the same message.
     */
    static final String OF_RESERVATION = """
            WITH RECURSIVE groups AS (
                (SELECT consumer_group FROM consumer_inbox ORDER BY consumer_group LIMIT 1)
                UNION ALL
                SELECT (SELECT i.consumer_group FROM consumer_inbox i WHERE i.consumer_group > g.consumer_group
                        ORDER BY i.consumer_group LIMIT 1)
                FROM groups g WHERE g.consumer_group IS NOT NULL
            )
            SELECT i.consumer_group, i.message_id, i.result_code, i.order_id, i.processed_at
            FROM consumer_inbox i
            JOIN groups g ON g.consumer_group = i.consumer_group
            WHERE i.message_id = (SELECT message_id FROM inventory_reservation WHERE reservation_id = ?)
            ORDER BY i.consumer_group
            """;

    private final JdbcTemplate jdbc;

    InboxRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Whether PostgreSQL answers a trivial query now (false when it cannot be reached). */
    public boolean answers() {
        try {
            return Integer.valueOf(1).equals(jdbc.queryForObject("SELECT 1", Integer.class));
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Inserts PROCESSING rows; returns the message ids this transaction now owns. */
    public List<UUID> claim(String group, String topic, String eventType, List<Inbox.Claim> claims) {
        int n = claims.size();
        String[] m = new String[n], r = new String[n], q = new String[n], h = new String[n];
        for (int i = 0; i < n; i++) {
            Inbox.Claim c = claims.get(i);
            m[i] = c.messageId().toString();
            r[i] = c.reservationId().toString();
            q[i] = c.requestId().toString();
            h[i] = HexFormat.of().formatHex(c.payloadHash());
        }
        return jdbc.queryForList(CLAIM, UUID.class, group, topic, eventType, m, r, q, h);
    }

    public Map<UUID, Inbox.Entry> find(String group, List<UUID> messageIds) {
        Map<UUID, Inbox.Entry> out = new HashMap<>();
        jdbc.query(
                FIND,
                rs -> {
                    UUID id = rs.getObject(1, UUID.class);
                    out.put(
                            id,
                            new Inbox.Entry(
                                    id,
                                    rs.getBytes(2),
                                    InboxResult.valueOf(rs.getString(3)),
                                    rs.getObject(4, UUID.class)));
                },
                group,
                Sql.uuids(messageIds));
        return out;
    }

    /** Records the outcome of each owned message; returns how many rows moved out of PROCESSING. */
    public int finish(String group, Map<UUID, InboxResult> codes, Map<UUID, UUID> orders) {
        int n = codes.size();
        String[] m = new String[n], c = new String[n], o = new String[n];
        int i = 0;
        for (var e : codes.entrySet()) {
            m[i] = e.getKey().toString();
            c[i] = e.getValue().name();
            UUID order = orders.get(e.getKey());
            o[i++] = order == null ? null : order.toString();
        }
        return jdbc.update(FINISH, m, c, o, group, m);
    }

    /** The reservation's inbox rows, for an operator's evidence. */
    public List<Map<String, Object>> ofReservation(UUID reservationId) {
        return jdbc.queryForList(OF_RESERVATION, reservationId);
    }
}
