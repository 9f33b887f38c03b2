package io.seckill.reservation;

import io.seckill.crypto.HmacSha256;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import javax.crypto.spec.SecretKeySpec;

/**
 * Stable business ids (DESIGN.md §9.1): reservation_id = HMAC(key_v, activity|sku|user|request) and
 * message_id = HMAC(key_v, ORDER_CREATE_REQUESTED|reservation_id|schema_version), truncated to 128
 * bits as an RFC 9562 version-8 UUID. Every retained key version is kept so a replay after a key
 * rotation still finds the reservation made under the older key.
 */
public final class ReservationIds {

    public static final int SCHEMA_VERSION = 1;

    /** Per key version, set up once per thread (two ids per admission). */
    private final NavigableMap<Integer, HmacSha256> keys;

    public ReservationIds(Map<Integer, String> secrets) {
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("at least one id key is required");
        }
        TreeMap<Integer, HmacSha256> k = new TreeMap<>();
        secrets.forEach((v, s) -> k.put(
                v,
                new HmacSha256(
                        new SecretKeySpec(s.getBytes(StandardCharsets.UTF_8), "HmacSHA256"), "id key version " + v)));
        this.keys = k;
    }

    public int currentVersion() {
        return keys.lastKey();
    }

    /** Newest first. */
    public List<Integer> versions() {
        return new ArrayList<>(keys.descendingKeySet());
    }

    public UUID reservationId(int version, long activityId, long skuId, long userId, UUID requestId) {
        return hmac(version, activityId + "|" + skuId + "|" + userId + "|" + requestId);
    }

    public UUID messageId(int version, UUID reservationId) {
        return hmac(version, "ORDER_CREATE_REQUESTED|" + reservationId + "|" + SCHEMA_VERSION);
    }

    /**
     * The signature of an order event's payload (what the outbox relay sends the projection), under key
     * {@code version}: hex HMAC of {@code ORDER_EVENT|} and the payload, apart from the ids' inputs by that label.
     */
    public String eventSignature(int version, byte[] payload) {
        HmacSha256 mac = keys.get(version);
        if (mac == null) {
            throw new IllegalArgumentException("unknown id key version " + version);
        }
        byte[] label = "ORDER_EVENT|".getBytes(StandardCharsets.UTF_8);
        byte[] input = new byte[label.length + payload.length];
        System.arraycopy(label, 0, input, 0, label.length);
        System.arraycopy(payload, 0, input, label.length, payload.length);
        return HexFormat.of().formatHex(mac.of(input));
    }

    /** Whether {@code signature} is the payload's under key {@code version} (a retained one); false when either is missing. */
    public boolean eventSigned(String version, String signature, byte[] payload) {
        if (version == null || signature == null) {
            return false;
        }
        int v;
        try {
            v = Integer.parseInt(version);
        } catch (NumberFormatException e) {
            return false;
        }
        return keys.containsKey(v)
                && MessageDigest.isEqual(
                        eventSignature(v, payload).getBytes(StandardCharsets.US_ASCII),
                        signature.getBytes(StandardCharsets.US_ASCII));
    }

    private UUID hmac(int version, String input) {
        HmacSha256 mac = keys.get(version);
        if (mac == null) {
            throw new IllegalArgumentException("unknown id key version " + version);
        }
        byte[] d = mac.of(input.getBytes(StandardCharsets.UTF_8));
        d[6] = (byte) ((d[6] & 0x0f) | 0x80); // version 8
        d[8] = (byte) ((d[8] & 0x3f) | 0x80); // RFC 9562 variant
        ByteBuffer b = ByteBuffer.wrap(d, 0, 16);
        return new UUID(b.getLong(), b.getLong());
    }

    /**
     * The id of a record derived from another business id (an order from its reservation, an
     * outbox event from its order): the same input always gives the same id, so a retry can
     * never invent a second one.
     */
    public static UUID derived(String kind, UUID from) {
        return UUID.nameUUIDFromBytes((kind + "|" + from).getBytes(StandardCharsets.UTF_8));
    }
}
