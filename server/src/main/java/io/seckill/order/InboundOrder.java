package io.seckill.order;

import io.seckill.reservation.OrderCreateRequested;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** One received order message: the parsed body, its exact bytes and their SHA-256. */
public record InboundOrder(OrderCreateRequested msg, byte[] body, byte[] hash, String brokerMsgId, String traceparent) {

    public static InboundOrder of(OrderCreateRequested msg, byte[] body, String brokerMsgId) {
        return new InboundOrder(msg, body, sha256(body), brokerMsgId, null);
    }

    /** The same message, consumed under the given trace context (what its order's events carry on). */
    public InboundOrder tracedBy(String traceparent) {
        return new InboundOrder(msg, body, hash, brokerMsgId, traceparent);
    }

    public static byte[] sha256(byte[] body) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(body);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
