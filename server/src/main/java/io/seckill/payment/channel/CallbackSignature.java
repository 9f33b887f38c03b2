package io.seckill.payment.channel;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The simulator's callback signature: HMAC-SHA256 over {@code <timestamp>.<body>} in lower-case
 * hex, sent as {@code X-Pay-Signature} beside {@code X-Pay-Timestamp} (epoch seconds). Signing the
 * timestamp with the body is what lets the receiver refuse a replayed callback.
 */
public final class CallbackSignature {

    public static final String SIGNATURE_HEADER = "X-Pay-Signature";
    public static final String TIMESTAMP_HEADER = "X-Pay-Timestamp";

    private final SecretKeySpec key;

    public CallbackSignature(String secret) {
        if (secret == null || secret.length() < 32) {
            throw new IllegalArgumentException("callback secret must be at least 32 characters");
        }
        this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    }

    public String sign(long timestampSeconds, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update((timestampSeconds + ".").getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** Constant-time comparison of a presented signature with the expected one. */
    public boolean matches(long timestampSeconds, byte[] body, String presented) {
        if (presented == null) {
            return false;
        }
        byte[] expected = sign(timestampSeconds, body).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, presented.trim().toLowerCase().getBytes(StandardCharsets.US_ASCII));
    }
}
