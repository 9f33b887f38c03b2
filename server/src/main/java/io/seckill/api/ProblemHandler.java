package io.seckill.api;

import io.seckill.db.DbBreaker;
import io.seckill.metrics.LogThrottle;
import io.seckill.refusal.Refusal;
import java.time.Duration;
import java.util.Map;
import org.apache.tomcat.util.http.InvalidParameterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * The one place that turns refusals and failures into RFC 9457 problem details with a stable code.
 * Spring MVC's own refusals (method, media type, missing parameter, unreadable body, ...) keep the
 * framework's status and get a code from it; the engine's refusals carry their own.
 */
@RestControllerAdvice
class ProblemHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemHandler.class);

    private final LogThrottle databaseAway = new LogThrottle(Duration.ofSeconds(1));

    @ExceptionHandler(Refusal.class)
    ResponseEntity<ProblemDetail> api(Refusal e) {
        HttpStatus status = Problems.status(e.kind());
        ProblemDetail p = Problems.problem(status, e.code(), e.getMessage());
        if (e.field() != null) {
            p.setProperty("field", e.field());
        }
        e.extra().forEach(p::setProperty);
        ResponseEntity.BodyBuilder answer =
                ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON);
        String retryAfter = Problems.retryAfter(e);
        if (retryAfter != null) {
            answer.header(HttpHeaders.RETRY_AFTER, retryAfter);
        }
        return answer.body(p);
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ResponseEntity<ProblemDetail> badPath(MethodArgumentTypeMismatchException e) {
        Class<?> type = e.getRequiredType();
        return api(
                Refusal.invalid(snake(e.getName()), "not a valid " + (type == null ? "value" : type.getSimpleName())));
    }

    /** A query string or form the container cannot decode (a bad %-escape, say). */
    @ExceptionHandler(InvalidParameterException.class)
    ResponseEntity<ProblemDetail> badParameters(InvalidParameterException e) {
        return api(Refusal.invalid("query", "parameters that cannot be decoded"));
    }

    /** The security firewall refuses what it sees lazily, too (a hostile parameter name read from a form body). */
    @ExceptionHandler(RequestRejectedException.class)
    ResponseEntity<ProblemDetail> rejected(RequestRejectedException e) {
        return api(Refusal.invalid("request", "refused: " + e.getMessage()));
    }

    /**
     * PostgreSQL unreachable, timed out, or refused at once by its breaker ({@link DbBreaker#noAnswer}): the
     * caller may come back. A line a second says so, not a stack trace per request. Any other database
     * failure is unexpected.
     */
    @ExceptionHandler(DataAccessException.class)
    ResponseEntity<ProblemDetail> database(DataAccessException e) {
        if (!DbBreaker.noAnswer(e)) {
            return unexpected(e);
        }
        long suppressed = databaseAway.tryAcquire();
        if (suppressed >= 0) {
            log.warn(
                    "request.database_unavailable error_class={} suppressed_since_last={}: {}",
                    e.getClass().getName(),
                    suppressed,
                    e.getMessage());
        }
        return api(new Refusal(
                Refusal.Kind.UNAVAILABLE,
                "UNAVAILABLE",
                "the database is not answering; retry later",
                null,
                Map.of("retry_after_seconds", 1)));
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception e) {
        log.error("request failed error_class={}", e.getClass().getName(), e);
        return problem(
                HttpStatus.INTERNAL_SERVER_ERROR,
                Problems.problem(HttpStatus.INTERNAL_SERVER_ERROR, "INTERNAL_ERROR", "internal error"));
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(
            HttpMessageNotReadableException e, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        return cast(api(Refusal.invalid("body", "missing or malformed JSON body")));
    }

    @Override
    protected ResponseEntity<Object> handleHttpMediaTypeNotSupported(
            HttpMediaTypeNotSupportedException e, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        return cast(api(new Refusal(
                Refusal.Kind.UNSUPPORTED_MEDIA,
                "UNSUPPORTED_MEDIA_TYPE",
                "content type must be application/json",
                "content_type",
                java.util.Map.of())));
    }

    /** Every other framework refusal: the framework's status and detail, our code. */
    @Override
    protected ResponseEntity<Object> handleExceptionInternal(
            Exception e, Object body, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        String detail = body instanceof ProblemDetail p && p.getDetail() != null ? p.getDetail() : e.getMessage();
        ProblemDetail p = Problems.problem(status, Problems.codeFor(status.value()), detail == null ? "" : detail);
        if (status.is5xxServerError()) {
            log.error("request failed error_class={}", e.getClass().getName(), e);
        }
        return ResponseEntity.status(status)
                .headers(headers)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(p);
    }

    private static ResponseEntity<ProblemDetail> problem(HttpStatusCode status, ProblemDetail p) {
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(p);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ResponseEntity<Object> cast(ResponseEntity<ProblemDetail> r) {
        return (ResponseEntity) r;
    }

    private static String snake(String name) {
        return name.replaceAll("([a-z])([A-Z])", "$1_$2").toLowerCase();
    }
}
