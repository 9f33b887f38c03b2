package io.seckill.reservation;

import io.seckill.redis.ScriptReply;
import java.util.List;

/**
 * reserve.lua's answer, {@code {code, word, reservation_id, status, now_ms, landed}}: {@code code} 1 a new
 * reservation, 2 the request answered before (its reservation and status), -1 the bucket is empty (status
 * {@code RETURNING}: its units came back while it was empty and are held, lua/lib/refill.lua), -2 the buyer already
 * holds one (its reservation and status), -3 the sale or slot is not open (its status), -4 the slot is not warmed;
 * {@code nowMs} the master's clock at the reservation; {@code landed} 1 when a bucket transfer's unit was landed by
 * this call.
 */
record ReserveReply(long code, String word, String reservationId, String status, long nowMs, boolean landed) {

    static final int RESERVED = 1;
    static final int REPLAYED = 2;
    static final int EMPTY = -1;
    static final int ALREADY_RESERVED = -2;
    static final int NOT_OPEN = -3;
    static final int NOT_WARMED = -4;

    /** The bucket's units are held after their return (an empty answer that is not the memo's to remember). */
    boolean returning() {
        return code == EMPTY && "RETURNING".equals(status);
    }

    static ReserveReply of(List<Object> reply) {
        ScriptReply head = ScriptReply.of(reply);
        return new ReserveReply(
                head.code(),
                head.word(),
                ScriptReply.text(reply, 2),
                ScriptReply.text(reply, 3),
                ScriptReply.number(reply, 4),
                ScriptReply.number(reply, 5) > 0);
    }
}
