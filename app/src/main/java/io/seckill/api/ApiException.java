package io.seckill.api;

import java.util.Map;

import org.springframework.http.HttpStatus;

/**
 * An expected refusal at the HTTP boundary, carrying the stable {@code code} of the problem
 * details body and, for bad input, the offending field.
 */
public class ApiException extends RuntimeException {

    private final HttpStatus status;
    private final String code;
    private final String field;
    private final Map<String, Object> extra;

    public ApiException(HttpStatus status, String code, String detail) {
        this(status, code, detail, null, Map.of());
    }

    public ApiException(HttpStatus status, String code, String detail, String field, Map<String, Object> extra) {
        // An expected refusal (most requests of a sale end SOLD_OUT): no stack trace to fill.
        super(detail, null, false, false);
        this.status = status;
        this.code = code;
        this.field = field;
        this.extra = extra == null ? Map.of() : extra;
    }

    public static ApiException invalid(String field, String detail) {
        return new ApiException(HttpStatus.BAD_REQUEST, "INVALID_REQUEST", field + ": " + detail, field, Map.of());
    }

    public static ApiException unauthorized(String detail) {
        return new ApiException(HttpStatus.UNAUTHORIZED, "UNAUTHORIZED", detail);
    }

    public HttpStatus status() {
        return status;
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
