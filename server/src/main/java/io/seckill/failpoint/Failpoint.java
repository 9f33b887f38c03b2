package io.seckill.failpoint;

import java.util.Arrays;
import java.util.List;

/**
 * The registry of failpoints (docs/DESIGN.md §13.3): each one's name, where in the pipeline it
 * sits, the fault-matrix rows it reproduces, and what {@code seckill demo --chaos} arms there. The
 * demo, the tests, the admin API and the documentation all read this list.
 */
public enum Failpoint {
    AFTER_REDIS_RESERVE(
            "after_redis_reserve",
            "the reservation Lua succeeded, the order message is not sent yet",
            List.of(1),
            "throw%2"),
    AFTER_BUCKET_TRANSFER_OUT(
            "after_bucket_transfer_out",
            "a unit left another bucket of a hot SKU for the buyer's home bucket, it has not landed there yet",
            List.of(),
            "throw%10"),
    AFTER_MQ_SEND_BEFORE_REDIS_MARK(
            "after_mq_send_before_redis_mark",
            "the broker took the message, Redis is not marked PUBLISHED yet",
            List.of(3),
            "throw%5"),
    AFTER_INBOX_INSERT(
            "after_inbox_insert", "inside the order transaction, after the inbox insert", List.of(5), "throw%10"),
    AFTER_PG_STOCK_DECREMENT(
            "after_pg_stock_decrement",
            "inside the order transaction, after the stock decrement",
            List.of(5, 8),
            "throw%5"),
    AFTER_ORDER_INSERT(
            "after_order_insert",
            "inside the order transaction, after the order insert",
            List.of(5),
            "lose-connection%5"),
    AFTER_PG_COMMIT_BEFORE_ACK(
            "after_pg_commit_before_ack",
            "the order transaction committed, the broker is not acked",
            List.of(6),
            "throw%10"),
    DURING_COMMIT_RESPONSE(
            "during_commit_response", "the commit happened, its response is lost", List.of(7), "lose-response%10"),
    AFTER_COMPENSATION_LUA(
            "after_compensation_lua",
            "Redis restored the unit, PostgreSQL's task is not updated yet",
            List.of(11, 12),
            "throw%20"),
    AFTER_PAYMENT_RECORD_INSERT(
            "after_payment_record_insert",
            "inside the payment transaction, after the payment record",
            List.of(16, 17),
            "throw%10"),
    AFTER_CANCEL_PENDING(
            "after_cancel_pending",
            "the order entered CANCEL_PENDING, the channel is not asked yet",
            List.of(16, 18),
            "throw%20");

    private final String id;
    private final String where;
    private final List<Integer> faultRows;
    private final String chaosAction;

    Failpoint(String id, String where, List<Integer> faultRows, String chaosAction) {
        this.id = id;
        this.where = where;
        this.faultRows = faultRows;
        this.chaosAction = chaosAction;
    }

    /** The name used in configuration ({@code seckill.failpoints.<id>}), the admin API and logs. */
    public String id() {
        return id;
    }

    public String where() {
        return where;
    }

    /** Rows of the fault matrix (docs/DESIGN.md §11.1) this failpoint reproduces. */
    public List<Integer> faultRows() {
        return faultRows;
    }

    /** What {@code seckill demo --chaos} arms here: every step fails now and then, nothing halts the process. */
    public String chaosAction() {
        return chaosAction;
    }

    public static Failpoint of(String id) {
        return Arrays.stream(values())
                .filter(f -> f.id.equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown failpoint '" + id + "', known: " + ids()));
    }

    public static List<String> ids() {
        return Arrays.stream(values()).map(Failpoint::id).toList();
    }
}
