package io.seckill.crypto;

import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 under one key, set up once per thread. Looking the algorithm up in the JCA providers
 * and deriving the key's pads cost more than hashing a token or an id; a finished MAC is ready for
 * the next input with the same key, so each thread keeps one. A key the JCA refuses fails the
 * constructor, not the first caller.
 */
public final class HmacSha256 {

    private final ThreadLocal<Mac> macs;

    /** {@code what} names the key in the error when it is refused (a property, a key version). */
    public HmacSha256(SecretKeySpec key, String what) {
        initialised(key, what);
        this.macs = ThreadLocal.withInitial(() -> initialised(key, what));
    }

    public byte[] of(byte[] input) {
        return macs.get().doFinal(input);
    }

    private static Mac initialised(SecretKeySpec key, String what) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(what + ": HmacSHA256 with this key is unavailable: " + e.getMessage(), e);
        }
    }
}
