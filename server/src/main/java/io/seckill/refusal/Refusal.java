package io.seckill.refusal;

import java.util.Map;

/**
 * An expected refusal of a request - bad input, an unknown object, a state that does not allow the
 * move, a dependency not ready - with the stable {@code code} a client can act on and, for bad
 * input, the offending field. The domain throws it without knowing about HTTP; the web layer maps
 * each {@link Kind} to a status in one place.
 */
public final class Refusal extends RuntimeException {

    /** What sort of refusal: the web layer's status, the CLI's wording. */
    public enum Kind {
        /** The request itself is wrong (a field, a value, a missing part). */
        INVALID,
        /** No credentials, or credentials not accepted. */
        UNAUTHENTICATED,
        /** Credentials accepted, the action is not theirs to take. */
        FORBIDDEN,
        /** The object named does not exist (for this caller). */
        NOT_FOUND,
        /** The object exists but its state does not allow this. */
        CONFLICT,
        /** The request body is in a media type not accepted. */
        UNSUPPORTED_MEDIA,
        /** The request body is larger than allowed. */
        TOO_LARGE,
        /** Too many requests; try again later. */
        TOO_MANY,
        /** A dependency is not ready; try again later. */
        UNAVAILABLE,
        /** A dependency answered with a failure. */
        UPSTREAM_FAILED
    }

    private final Kind kind;
    private final String code;
    private final String field;
    private final Map<String, Object> extra;

    public Refusal(Kind kind, String code, String detail, String field, Map<String, Object> extra) {
        // an expected refusal (most requests of a sale end SOLD_OUT): no stack trace to fill
        super(detail, null, false, false);
        this.kind = kind;
        this.code = code;
        this.field = field;
        this.extra = extra == null ? Map.of() : extra;
    }

    public Refusal(Kind kind, String code, String detail) {
        this(kind, code, detail, null, Map.of());
    }

    public static Refusal invalid(String field, String detail) {
        return new Refusal(Kind.INVALID, "INVALID_REQUEST", field + ": " + detail, field, Map.of());
    }

    public static Refusal notFound(String code, String detail) {
        return new Refusal(Kind.NOT_FOUND, code, detail, null, Map.of());
    }

    public static Refusal notFound(String code, String detail, String field) {
        return new Refusal(Kind.NOT_FOUND, code, detail, field, Map.of());
    }

    public static Refusal conflict(String code, String detail) {
        return new Refusal(Kind.CONFLICT, code, detail, null, Map.of());
    }

    public static Refusal conflict(String code, String detail, String field) {
        return new Refusal(Kind.CONFLICT, code, detail, field, Map.of());
    }

    public static Refusal unavailable(String code, String detail) {
        return new Refusal(Kind.UNAVAILABLE, code, detail, null, Map.of());
    }

    public static Refusal unauthenticated(String detail) {
        return new Refusal(Kind.UNAUTHENTICATED, "UNAUTHORIZED", detail, null, Map.of());
    }

    public static Refusal forbidden(String detail) {
        return new Refusal(Kind.FORBIDDEN, "FORBIDDEN", detail, null, Map.of());
    }

    public Kind kind() {
        return kind;
    }

    public String code() {
        return code;
    }

    public String field() {
        return field;
    }

    public Map<String, Object> extra() {
        return extra;
    }
}
