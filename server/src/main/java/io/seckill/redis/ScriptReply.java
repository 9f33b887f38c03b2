package io.seckill.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The reply of a script that answers {@code {code, word, ...}} - most of the library: a positive code when it
 * did the move (1) or found it done (2), a negative one with the word naming the refusal
 * ({@code RESERVATION_MISSING}, {@code LEASE_LOST}, ...). Scripts with more to say have a decoder of their own
 * beside their caller ({@code ReserveReply}, {@code SlotCounters}); nothing else reads a reply by position.
 */
public record ScriptReply(long code, String word) {

    public static ScriptReply of(List<Object> reply) {
        if (reply == null || reply.isEmpty() || !(reply.getFirst() instanceof Number n)) {
            throw new IllegalStateException("a script answered without a code: " + reply);
        }
        return new ScriptReply(n.longValue(), text(reply, 1));
    }

    /** The code alone, for a caller that only tells the codes apart. */
    public static long codeOf(List<Object> reply) {
        return of(reply).code();
    }

    /** The move was made now. */
    public boolean done() {
        return code == 1;
    }

    public boolean refused() {
        return code < 0;
    }

    /** Element {@code index} of a reply as text; null when absent. For the decoders. */
    public static String text(List<Object> reply, int index) {
        if (reply.size() <= index || reply.get(index) == null) {
            return null;
        }
        Object v = reply.get(index);
        return v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString();
    }

    /** Element {@code index} of a reply as a number; 0 when absent. For the decoders. */
    public static long number(List<Object> reply, int index) {
        if (reply.size() <= index || reply.get(index) == null) {
            return 0;
        }
        Object v = reply.get(index);
        return v instanceof Number n ? n.longValue() : Long.parseLong(text(reply, index));
    }

    @Override
    public String toString() {
        return code + " " + word;
    }
}
