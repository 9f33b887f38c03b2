package io.seckill.api;

import io.seckill.json.Json;
import io.seckill.refusal.Refusal;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import tools.jackson.core.JsonGenerator;

/** RFC 9457 problem details with a stable {@code code}: one shape for the application, filters and the container. */
public final class Problems {

    public static final String CONTENT_TYPE = "application/problem+json";

    private Problems() {}

    public static ProblemDetail problem(HttpStatusCode status, String code, String detail) {
        ProblemDetail p = ProblemDetail.forStatusAndDetail(status, detail);
        p.setType(type(code));
        p.setTitle(code);
        p.setProperty("code", code);
        return p;
    }

    /** Each kind of refusal as an HTTP status, here and nowhere else. */
    public static HttpStatus status(Refusal.Kind kind) {
        return switch (kind) {
            case INVALID -> HttpStatus.BAD_REQUEST;
            case UNAUTHENTICATED -> HttpStatus.UNAUTHORIZED;
            case FORBIDDEN -> HttpStatus.FORBIDDEN;
            case NOT_FOUND -> HttpStatus.NOT_FOUND;
            case CONFLICT -> HttpStatus.CONFLICT;
            case UNSUPPORTED_MEDIA -> HttpStatus.UNSUPPORTED_MEDIA_TYPE;
            case TOO_LARGE -> HttpStatus.PAYLOAD_TOO_LARGE;
            case TOO_MANY -> HttpStatus.TOO_MANY_REQUESTS;
            case UNAVAILABLE -> HttpStatus.SERVICE_UNAVAILABLE;
            case UPSTREAM_FAILED -> HttpStatus.BAD_GATEWAY;
        };
    }

    /** The code of a refusal the framework or the container makes, by its status. */
    public static String codeFor(int status) {
        return switch (status) {
            case 400 -> "INVALID_REQUEST";
            case 401 -> "UNAUTHORIZED";
            case 403 -> "FORBIDDEN";
            case 404 -> "NOT_FOUND";
            case 405 -> "METHOD_NOT_ALLOWED";
            case 406 -> "NOT_ACCEPTABLE";
            case 408 -> "REQUEST_TIMEOUT";
            case 413 -> "PAYLOAD_TOO_LARGE";
            case 414 -> "URI_TOO_LONG";
            case 415 -> "UNSUPPORTED_MEDIA_TYPE";
            case 429 -> "RATE_LIMITED";
            case 431 -> "HEADERS_TOO_LARGE";
            case 501 -> "NOT_IMPLEMENTED";
            case 503 -> "UNAVAILABLE";
            default -> status >= 500 ? "INTERNAL_ERROR" : "BAD_REQUEST";
        };
    }

    /** The problem document as bytes, for writers outside Spring MVC. */
    public static byte[] json(int status, String code, String detail) {
        return write(status, code, detail, null, null, Map.of());
    }

    /**
     * A refusal's problem document as bytes, with its field and extra properties, as the problem handler
     * writes it; {@code instance} is the request's path (null: none, as for a refusal of the security layer).
     */
    public static byte[] json(Refusal refusal, String instance) {
        return write(
                status(refusal.kind()).value(),
                refusal.code(),
                refusal.getMessage(),
                instance,
                refusal.field(),
                refusal.extra());
    }

    /** The members every document starts with, in their order; an extra property never replaces one. */
    private static final Set<String> MEMBERS = Set.of("type", "title", "status", "detail", "code", "instance", "field");

    /**
     * The document written member by member: the entry answers most of a sale's buyers with one (sold out,
     * paced, paused), and a map built and serialized for each took a tenth of its answering threads.
     */
    private static byte[] write(
            int status, String code, String detail, String instance, String field, Map<String, Object> extra) {
        for (String key : extra.keySet()) {
            if (MEMBERS.contains(key)) {
                throw new IllegalArgumentException("a problem's extra property cannot replace its member " + key);
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = Json.MAPPER.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringProperty("type", typeOf(code));
            g.writeStringProperty("title", code);
            g.writeNumberProperty("status", status);
            g.writeStringProperty("detail", detail);
            g.writeStringProperty("code", code);
            if (instance != null) {
                g.writeStringProperty("instance", instance);
            }
            if (field != null) {
                g.writeStringProperty("field", field);
            }
            for (var e : extra.entrySet()) {
                g.writePOJOProperty(e.getKey(), e.getValue());
            }
            g.writeEndObject();
        }
        return out.toByteArray();
    }

    /** The {@code Retry-After} header's value for a refusal that asks the caller to come back; null for any other. */
    public static String retryAfter(Refusal refusal) {
        return refusal.extra().get("retry_after_seconds") instanceof Integer seconds ? seconds.toString() : null;
    }

    /**
     * Writes a problem to a servlet response that nothing has been written to yet. A request refused
     * before its body was received whole is told its connection closes: the rest of the body is not
     * read ({@link UnreadBodyValve}), and a client must not send its next request on that connection.
     */
    public static void write(
            HttpServletRequest request, HttpServletResponse response, HttpStatus status, String code, String detail)
            throws IOException {
        if (request.getAttribute(UnreadBodyValve.BODY_STILL_COMING) != null) {
            response.setHeader("Connection", "close");
        }
        byte[] body = json(status.value(), code, detail);
        response.setStatus(status.value());
        response.setContentType(CONTENT_TYPE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    private static URI type(String code) {
        return URI.create(typeOf(code));
    }

    /** The codes are the application's own constants: their types are made once each. */
    private static final ConcurrentHashMap<String, String> TYPES = new ConcurrentHashMap<>();

    private static String typeOf(String code) {
        String known = TYPES.get(code);
        if (known != null) {
            return known;
        }
        String type = URI.create("https://seckill.io/problems/"
                        + code.toLowerCase(Locale.ROOT).replace('_', '-'))
                .toString();
        if (TYPES.size() < 1_000) {
            TYPES.putIfAbsent(code, type);
        }
        return type;
    }
}
