package io.seckill.reservation;

import io.seckill.redis.ScriptReply;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * One entry claim_due.lua claimed, by name: {@code {rid, status, message_id, request_id, user_id, activity_id,
 * sku_id, reserved_at_ms, business_deadline_ms, send_attempts, expired_owner}} per entry, flat. Fields stay text
 * until asked for: an entry whose recovery fields cannot be read is set aside by the caller, not a failed pass.
 */
record ClaimedEntry(
        String reservationId,
        String status,
        String messageId,
        String requestId,
        String userId,
        String activityId,
        String skuId,
        String reservedAtMs,
        String businessDeadlineMs,
        String attempts,
        String expiredOwner) {

    static final int FIELDS = 11;
    /** The status of an entry whose reservation hash was gone (dropped from send_due by the script). */
    static final String MISSING = "MISSING";

    static List<ClaimedEntry> all(List<Object> reply) {
        int n = reply.size() / FIELDS;
        List<ClaimedEntry> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int at = i * FIELDS;
            out.add(new ClaimedEntry(
                    ScriptReply.text(reply, at),
                    ScriptReply.text(reply, at + 1),
                    ScriptReply.text(reply, at + 2),
                    ScriptReply.text(reply, at + 3),
                    ScriptReply.text(reply, at + 4),
                    ScriptReply.text(reply, at + 5),
                    ScriptReply.text(reply, at + 6),
                    ScriptReply.text(reply, at + 7),
                    ScriptReply.text(reply, at + 8),
                    ScriptReply.text(reply, at + 9),
                    ScriptReply.text(reply, at + 10)));
        }
        return out;
    }

    boolean missing() {
        return MISSING.equals(status);
    }

    /** The original order message, as admission built it; throws on a field that cannot be read. */
    OrderCreateRequested message() {
        return OrderCreateRequested.of(
                UUID.fromString(messageId),
                UUID.fromString(requestId),
                UUID.fromString(reservationId),
                Long.parseLong(activityId),
                Long.parseLong(skuId),
                Long.parseLong(userId),
                Long.parseLong(reservedAtMs),
                Long.parseLong(businessDeadlineMs));
    }

    int sendAttempts() {
        return Integer.parseInt(attempts);
    }
}
