package io.seckill.payment.channel;

import io.seckill.json.Json;
import io.seckill.refusal.Input;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The adapter for the project's payment simulator ({@code seckill paysim}). Requests carry the
 * engine's ids, so every call can be repeated safely; a transport error, a timeout or a 5xx is
 * {@link ChannelUnavailable} - an unknown outcome, never "unpaid".
 */
public final class PaysimChannel implements PaymentChannel {

    public static final String PROVIDER = "paysim";
    /** The longest text field a callback may carry (a transaction id is tens of characters). */
    private static final int MAX_TEXT = 200;

    private final HttpClient http;
    private final String base;
    private final Duration timeout;
    private final CallbackSignature signature;
    private final Duration window;
    private final Clock clock;

    public PaysimChannel(String baseUrl, Duration timeout, String callbackSecret, Duration window, Clock clock) {
        this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.timeout = timeout;
        this.signature = new CallbackSignature(callbackSecret);
        this.window = window;
        this.clock = clock;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout)
                .build();
    }

    @Override
    public String provider() {
        return PROVIDER;
    }

    @Override
    public Created create(UUID paymentId, UUID orderId, BigDecimal amount, String notifyUrl) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("payment_id", paymentId.toString());
        body.put("order_id", orderId.toString());
        body.put("amount", amount.toPlainString());
        body.put("notify_url", notifyUrl);
        Reply r = call("POST", "/payments", body);
        if (r.status() == 409) {
            return new Created(paymentId, null, null, Status.CLOSED);
        }
        r.requireOk("create payment " + paymentId);
        return new Created(
                paymentId,
                (String) r.body().get("provider_transaction_id"),
                (String) r.body().get("pay_url"),
                Status.valueOf((String) r.body().get("status")));
    }

    @Override
    public State query(UUID paymentId) {
        Reply r = call("GET", "/payments/" + paymentId, null);
        if (r.status() == 404) {
            return new State(paymentId, Status.NOT_FOUND, null, null, null);
        }
        r.requireOk("query payment " + paymentId);
        return state(paymentId, r.body());
    }

    @Override
    public State close(UUID paymentId) {
        Reply r = call("POST", "/payments/" + paymentId + "/close", Map.of());
        r.requireOk("close payment " + paymentId);
        return state(paymentId, r.body());
    }

    @Override
    public State refund(UUID paymentId, UUID refundId, BigDecimal amount) {
        Reply r = call(
                "POST",
                "/payments/" + paymentId + "/refund",
                Map.of("refund_id", refundId.toString(), "amount", amount.toPlainString()));
        r.requireOk("refund payment " + paymentId);
        return state(paymentId, r.body());
    }

    @Override
    public Callback verify(Map<String, String> headers, byte[] body) {
        String ts = header(headers, CallbackSignature.TIMESTAMP_HEADER);
        String sig = header(headers, CallbackSignature.SIGNATURE_HEADER);
        if (ts == null) {
            throw new CallbackRejected("X-Pay-Timestamp", "missing timestamp header");
        }
        long seconds;
        try {
            seconds = Long.parseLong(ts.trim());
        } catch (NumberFormatException e) {
            throw new CallbackRejected("X-Pay-Timestamp", "timestamp is not epoch seconds");
        }
        if (!signature.matches(seconds, body, sig)) {
            throw new CallbackRejected("X-Pay-Signature", "signature does not match");
        }
        long skew = Math.abs(clock.instant().getEpochSecond() - seconds);
        if (skew > window.toSeconds()) {
            throw new CallbackRejected(
                    "X-Pay-Timestamp",
                    "timestamp outside the " + window.toSeconds() + " s window (" + skew + " s off)");
        }
        Map<String, Object> m;
        try {
            m = readMap(body);
        } catch (RuntimeException e) {
            throw new CallbackRejected("body", "not a JSON object");
        }
        if (m == null) {
            throw new CallbackRejected("body", "not a JSON object");
        }
        return notice(m);
    }

    @Override
    public Statement statement(Instant from, Instant to, String after, int limit) {
        StringBuilder path = new StringBuilder("/statement?from=")
                .append(from)
                .append("&to=")
                .append(to)
                .append("&limit=")
                .append(limit);
        if (after != null) {
            path.append("&after=").append(URLEncoder.encode(after, StandardCharsets.UTF_8));
        }
        Reply r = call("GET", path.toString(), null);
        r.requireOk("read the statement " + from + " .. " + to);
        List<Callback> entries = new ArrayList<>();
        if (!(r.body().get("entries") instanceof List<?> list)) {
            throw new ChannelUnavailable("statement " + from + " .. " + to + ": no entries list in " + r.body(), null);
        }
        for (Object o : list) {
            if (!(o instanceof Map<?, ?> m)) {
                throw new ChannelUnavailable(
                        "statement " + from + " .. " + to + ": entry " + o + " is not an object", null);
            }
            try {
                @SuppressWarnings("unchecked")
                Map<String, Object> entry = (Map<String, Object>) m;
                Callback c = notice(entry);
                if (c.paidAt() == null) {
                    throw new CallbackRejected("paid_at", "is required in a statement entry");
                }
                entries.add(c);
            } catch (CallbackRejected e) {
                throw new ChannelUnavailable(
                        "statement " + from + " .. " + to + ": entry " + m + ": " + e.field() + " " + e.getMessage(),
                        e);
            }
        }
        Object next = r.body().get("next");
        return new Statement(entries, next == null ? null : next.toString());
    }

    /** A callback body or a statement entry: the same fields. */
    private static Callback notice(Map<String, Object> m) {
        return new Callback(
                uuid(m, "payment_id"),
                uuid(m, "order_id"),
                text(m, "provider_transaction_id"),
                amount(m),
                status(m),
                paidAt(m));
    }

    private static Instant paidAt(Map<String, Object> m) {
        Object v = m.get("paid_at");
        if (v == null) {
            return null;
        }
        try {
            return Instant.parse(v.toString());
        } catch (java.time.format.DateTimeParseException e) {
            throw new CallbackRejected("paid_at", "must be an ISO-8601 instant");
        }
    }

    private static State state(UUID paymentId, Map<String, Object> m) {
        Object amount = m.get("amount");
        Object paidAt = m.get("paid_at");
        return new State(
                paymentId,
                Status.valueOf((String) m.get("status")),
                (String) m.get("provider_transaction_id"),
                amount == null ? null : new BigDecimal(amount.toString()),
                paidAt == null ? null : Instant.parse(paidAt.toString()));
    }

    private static String header(Map<String, String> headers, String name) {
        for (var e : headers.entrySet()) {
            if (e.getKey().equalsIgnoreCase(name)) {
                return e.getValue();
            }
        }
        return null;
    }

    private static UUID uuid(Map<String, Object> m, String field) {
        try {
            return UUID.fromString(text(m, field));
        } catch (IllegalArgumentException e) {
            throw new CallbackRejected(field, "must be a UUID");
        }
    }

    private static String text(Map<String, Object> m, String field) {
        Object v = m.get(field);
        if (v == null || v.toString().isBlank()) {
            throw new CallbackRejected(field, "is required");
        }
        String text = v.toString();
        if (text.length() > MAX_TEXT || Input.firstControl(text) >= 0) {
            throw new CallbackRejected(field, "must be at most " + MAX_TEXT + " characters of printable text");
        }
        return text;
    }

    private static BigDecimal amount(Map<String, Object> m) {
        try {
            BigDecimal a = new BigDecimal(text(m, "amount"));
            if (a.signum() < 0) {
                throw new CallbackRejected("amount", "must not be negative");
            }
            return a;
        } catch (NumberFormatException e) {
            throw new CallbackRejected("amount", "must be a decimal number");
        }
    }

    private static Status status(Map<String, Object> m) {
        try {
            return Status.valueOf(text(m, "status"));
        } catch (IllegalArgumentException e) {
            throw new CallbackRejected("status", "unknown payment status");
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> readMap(byte[] body) {
        return Json.read(body, Map.class);
    }

    private record Reply(int status, Map<String, Object> body) {
        void requireOk(String what) {
            if (status != 200) {
                throw new ChannelUnavailable(what + ": channel answered HTTP " + status + " " + body, null);
            }
        }
    }

    private Reply call(String method, String path, Object body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(timeout)
                .header("Content-Type", "application/json");
        b = body == null
                ? b.method(method, HttpRequest.BodyPublishers.noBody())
                : b.method(method, HttpRequest.BodyPublishers.ofByteArray(Json.bytes(body)));
        try {
            HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Reply(r.statusCode(), r.body().length == 0 ? Map.of() : readMap(r.body()));
        } catch (IOException e) {
            throw new ChannelUnavailable(
                    method + " " + path + ": " + e.getClass().getSimpleName() + " " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ChannelUnavailable(method + " " + path + ": interrupted", e);
        } catch (RuntimeException e) {
            throw new ChannelUnavailable(method + " " + path + ": unreadable answer " + e.getMessage(), e);
        }
    }
}
