package io.seckill.order;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import io.seckill.reservation.OrderCreateRequested;

/** One received order message: the parsed body, its exact bytes and their SHA-256. */
public record InboundOrder(OrderCreateRequested msg, byte[] body, byte[] hash, String brokerMsgId) {

    public static InboundOrder of(OrderCreateRequested msg, byte[] body, String brokerMsgId) {
        return new InboundOrder(msg, body, sha256(body), brokerMsgId);
    }

    public static byte[] sha256(byte[] body) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(body);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
