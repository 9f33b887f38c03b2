package io.seckill.paysim;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.seckill.json.Json;
import io.seckill.payment.channel.CallbackSignature;
import io.seckill.payment.channel.PaymentChannel.Status;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A payment channel simulator: its own small HTTP service with the calls a real channel offers
 * (create, query, close, refund) and signed asynchronous callbacks, plus the misbehaviour a real
 * channel shows on a bad day, switched by {@link Knobs}:
 * duplicate callbacks, late callbacks, money taken after the payment was closed, failing or slow
 * queries.
 *
 * <pre>
 * POST /payments                  {payment_id, order_id, amount, notify_url} -> state (409 if closed)
 * GET  /payments/{id}             -> state, 404 if unknown
 * POST /payments/{id}/close       -> state (a paid payment stays SUCCESS)
 * POST /payments/{id}/refund      {refund_id, amount} -> state
 * POST /payments/{id}/pay         the buyer pays; callbacks follow (?callback=false: none)
 * POST /payments/{id}/notify      send the callback (again) now
 * GET  /statement?from=&to=      the payments paid in [from, to), oldest first, paged (after=, limit=)
 * GET|POST /knobs                 read or change the knobs
 * </pre>
 */
public final class PaySim implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PaySim.class);

    /** Misbehaviour switches; all off by default. */
    public record Knobs(
            int duplicateCallbacks,
            long callbackDelayMs,
            boolean payAfterClose,
            int queryFailurePercent,
            long queryDelayMs,
            int lostCallbackPercent) {
        public static final Knobs NORMAL = new Knobs(1, 0, false, 0, 0, 0);

        /** The channel takes money for payments the engine already closed. */
        public Knobs payingAfterClose() {
            return new Knobs(
                    duplicateCallbacks, callbackDelayMs, true, queryFailurePercent, queryDelayMs, lostCallbackPercent);
        }

        /** {@code percent} of the queries, closes and statement reads answered 503. */
        public Knobs failingQueries(int percent) {
            return new Knobs(
                    duplicateCallbacks, callbackDelayMs, payAfterClose, percent, queryDelayMs, lostCallbackPercent);
        }

        /** {@code percent} of the paid payments get no callback at all (only the statement shows them). */
        public Knobs losingCallbacks(int percent) {
            return new Knobs(
                    duplicateCallbacks, callbackDelayMs, payAfterClose, queryFailurePercent, queryDelayMs, percent);
        }

        public Knobs {
            if (duplicateCallbacks < 0 || duplicateCallbacks > 1000) {
                throw new IllegalArgumentException("duplicate_callbacks must be 0..1000");
            }
            if (callbackDelayMs < 0 || queryDelayMs < 0) {
                throw new IllegalArgumentException("callback_delay_ms and query_delay_ms must not be negative");
            }
            if (queryFailurePercent < 0 || queryFailurePercent > 100) {
                throw new IllegalArgumentException("query_failure_percent must be 0..100");
            }
            if (lostCallbackPercent < 0 || lostCallbackPercent > 100) {
                throw new IllegalArgumentException("lost_callback_percent must be 0..100");
            }
        }
    }

    /** One payment as the channel holds it. */
    public static final class Payment {
        final UUID paymentId;
        final UUID orderId;
        final BigDecimal amount;
        final String notifyUrl;
        final String providerTransactionId;
        volatile Status status;
        volatile Instant paidAt;
        final Set<UUID> refunds = ConcurrentHashMap.newKeySet();

        Payment(UUID paymentId, UUID orderId, BigDecimal amount, String notifyUrl, Status status) {
            this.paymentId = paymentId;
            this.orderId = orderId;
            this.amount = amount;
            this.notifyUrl = notifyUrl;
            this.providerTransactionId =
                    "PS" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
            this.status = status;
        }

        public Status status() {
            return status;
        }

        /** When the money was taken; null while unpaid. */
        public Instant paidAt() {
            return paidAt;
        }
    }

    private final HttpServer server;
    private final CallbackSignature signature;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    private final ScheduledExecutorService callbacks = Executors.newScheduledThreadPool(
            4, Thread.ofPlatform().name("paysim-callback-", 0).daemon().factory());
    private final Map<UUID, Payment> payments = new ConcurrentHashMap<>();
    private final AtomicLong callbacksDelivered = new AtomicLong();
    private final AtomicLong callbacksFailed = new AtomicLong();
    private final AtomicLong refunded = new AtomicLong();
    private final AtomicLong callbacksLost = new AtomicLong();
    private volatile Knobs knobs = Knobs.NORMAL;

    private PaySim(HttpServer server, String secret) {
        this.server = server;
        this.signature = new CallbackSignature(secret);
    }

    /** Starts the simulator on {@code port} (0 = any free port) of the loopback interface. */
    public static PaySim start(int port, String callbackSecret) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 256);
        PaySim sim = new PaySim(server, callbackSecret);
        server.createContext("/", sim::handle);
        server.setExecutor(Executors.newFixedThreadPool(
                8, Thread.ofPlatform().name("paysim-http-", 0).daemon().factory()));
        server.start();
        log.info("paysim.started url={}", sim.url());
        return sim;
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public void knobs(Knobs k) {
        this.knobs = k;
        log.info("paysim.knobs {}", k);
    }

    public Knobs knobs() {
        return knobs;
    }

    public long callbacksDelivered() {
        return callbacksDelivered.get();
    }

    public long callbacksFailed() {
        return callbacksFailed.get();
    }

    /** Paid payments whose callback was never sent ({@link Knobs#lostCallbackPercent()}). */
    public long callbacksLost() {
        return callbacksLost.get();
    }

    /** Every payment whose money the channel took (kept or refunded since). */
    public List<UUID> paidPayments() {
        return payments.values().stream()
                .filter(p -> p.paidAt != null)
                .map(p -> p.paymentId)
                .toList();
    }

    /** The channel's state of a payment, or null. */
    public Payment payment(UUID paymentId) {
        return payments.get(paymentId);
    }

    /**
     * The buyer pays. A closed payment refuses - unless {@code pay_after_close} is on, which is the
     * channel taking the money anyway (the race of DESIGN.md §7.6). Returns whether money was taken.
     */
    public boolean pay(UUID paymentId, boolean sendCallback) {
        Payment p = payments.get(paymentId);
        if (p == null) {
            return false;
        }
        boolean taken;
        synchronized (p) {
            taken = switch (p.status) {
                case WAITING -> true;
                case CLOSED -> knobs.payAfterClose() && p.orderId != null;
                default -> false;
            };
            if (taken) {
                p.status = Status.SUCCESS;
                p.paidAt = Instant.now().truncatedTo(ChronoUnit.MILLIS);
            }
        }
        Knobs k = knobs;
        if (taken
                && sendCallback
                && k.lostCallbackPercent() > 0
                && ThreadLocalRandom.current().nextInt(100) < k.lostCallbackPercent()) {
            callbacksLost.incrementAndGet();
            log.info("paysim.callback_lost payment_id={}", paymentId);
        } else if (taken && sendCallback) {
            for (int i = 0; i < Math.max(0, k.duplicateCallbacks()); i++) {
                scheduleCallback(p, k.callbackDelayMs() * (i + 1), 0);
            }
        }
        return taken;
    }

    /**
     * The channel lists a paid payment late: its statement shows it as paid at {@code paidAt}, behind
     * a window the engine may already have read.
     */
    public void listLate(UUID paymentId, Instant paidAt) {
        Payment p = payments.get(paymentId);
        if (p == null || p.paidAt == null) {
            throw new IllegalArgumentException("payment " + paymentId + " is not paid");
        }
        p.paidAt = paidAt.truncatedTo(ChronoUnit.MILLIS);
    }

    /** Sends a payment's callback (again) after {@code delayMs}: a duplicate or a late notification. */
    public void notifyLater(UUID paymentId, long delayMs) {
        Payment p = payments.get(paymentId);
        if (p != null) {
            scheduleCallback(p, delayMs, 0);
        }
    }

    /** The signed callback of a payment as the channel would send it: body, timestamp, signature. */
    public record SignedCallback(byte[] body, long timestamp, String signature) {
        public Map<String, String> headers() {
            return Map.of(
                    CallbackSignature.TIMESTAMP_HEADER,
                    Long.toString(timestamp),
                    CallbackSignature.SIGNATURE_HEADER,
                    signature);
        }
    }

    public SignedCallback signedCallback(UUID paymentId, long timestampSeconds) {
        Payment p = payments.get(paymentId);
        if (p == null) {
            throw new IllegalArgumentException("unknown payment " + paymentId);
        }
        byte[] body = Json.bytes(view(p));
        return new SignedCallback(body, timestampSeconds, signature.sign(timestampSeconds, body));
    }

    private static final int CALLBACK_ATTEMPTS = 15;

    private void scheduleCallback(Payment p, long delayMs, int attempt) {
        callbacks.schedule(() -> deliver(p, attempt), delayMs, TimeUnit.MILLISECONDS);
    }

    private void deliver(Payment p, int attempt) {
        if (p.notifyUrl == null) {
            return;
        }
        SignedCallback cb = signedCallback(p.paymentId, Instant.now().getEpochSecond());
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create(p.notifyUrl))
                    .timeout(Duration.ofSeconds(5))
                    .header("Content-Type", "application/json")
                    .header(CallbackSignature.TIMESTAMP_HEADER, Long.toString(cb.timestamp()))
                    .header(CallbackSignature.SIGNATURE_HEADER, cb.signature())
                    .POST(HttpRequest.BodyPublishers.ofByteArray(cb.body()))
                    .build();
            HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 == 2) {
                callbacksDelivered.incrementAndGet();
                return;
            }
            log.warn("paysim.callback_refused payment_id={} status={} body={}", p.paymentId, r.statusCode(), r.body());
        } catch (IOException e) {
            log.warn("paysim.callback_failed payment_id={} attempt={} error={}", p.paymentId, attempt, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        callbacksFailed.incrementAndGet();
        // as a real channel does, it keeps notifying with growing pauses (here for about two and a half minutes)
        if (attempt < CALLBACK_ATTEMPTS) {
            scheduleCallback(p, Math.min(200L << Math.min(attempt, 10), 15_000), attempt + 1);
        } else {
            log.error("paysim.callback_abandoned payment_id={} attempts={}", p.paymentId, attempt + 1);
        }
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String[] parts = ex.getRequestURI().getPath().split("/");
            String method = ex.getRequestMethod();
            Map<String, Object> body = readBody(ex.getRequestBody());
            if (parts.length == 2 && parts[1].equals("knobs")) {
                if (method.equals("POST")) {
                    knobs(new Knobs(
                            intOr(body, "duplicate_callbacks", knobs.duplicateCallbacks()),
                            intOr(body, "callback_delay_ms", (int) knobs.callbackDelayMs()),
                            Boolean.parseBoolean(
                                    String.valueOf(body.getOrDefault("pay_after_close", knobs.payAfterClose()))),
                            intOr(body, "query_failure_percent", knobs.queryFailurePercent()),
                            intOr(body, "query_delay_ms", (int) knobs.queryDelayMs()),
                            intOr(body, "lost_callback_percent", knobs.lostCallbackPercent())));
                }
                reply(ex, 200, Json.MAPPER.convertValue(knobs, Map.class));
                return;
            }
            if (parts.length == 2 && parts[1].equals("statement") && method.equals("GET")) {
                statement(ex);
                return;
            }
            if (parts.length < 2 || !parts[1].equals("payments")) {
                reply(ex, 404, Map.of("error", "no such path"));
                return;
            }
            if (parts.length == 2 && method.equals("POST")) {
                create(ex, body);
                return;
            }
            if (parts.length < 3) {
                reply(ex, 404, Map.of("error", "no such call"));
                return;
            }
            UUID id = UUID.fromString(parts[2]);
            String action = parts.length > 3 ? parts[3] : "";
            switch (method + " " + action) {
                case "GET " -> query(ex, id);
                case "POST close" -> close(ex, id);
                case "POST refund" -> refund(ex, id, body);
                case "POST pay" -> {
                    boolean taken =
                            pay(id, !"callback=false".equals(ex.getRequestURI().getQuery()));
                    Payment p = payments.get(id);
                    reply(ex, p == null ? 404 : taken ? 200 : 409, p == null ? Map.of("status", "NOT_FOUND") : view(p));
                }
                case "POST notify" -> {
                    Payment p = payments.get(id);
                    if (p == null) {
                        reply(ex, 404, Map.of("status", "NOT_FOUND"));
                    } else {
                        notifyLater(id, 0);
                        reply(ex, 202, view(p));
                    }
                }
                default -> reply(ex, 404, Map.of("error", "no such call"));
            }
        } catch (IllegalArgumentException e) {
            reply(ex, 400, Map.of("error", String.valueOf(e.getMessage())));
        } catch (RuntimeException e) {
            log.error("paysim.request_failed path={}", ex.getRequestURI(), e);
            reply(ex, 500, Map.of("error", e.toString()));
        }
    }

    private void create(HttpExchange ex, Map<String, Object> body) throws IOException {
        UUID id = UUID.fromString(required(body, "payment_id"));
        UUID orderId = UUID.fromString(required(body, "order_id"));
        BigDecimal amount = new BigDecimal(required(body, "amount"));
        String notify = required(body, "notify_url");
        Payment p = payments.computeIfAbsent(id, k -> new Payment(id, orderId, amount, notify, Status.WAITING));
        if (p.orderId == null) {
            reply(ex, 409, view(p));
            return;
        }
        reply(ex, 200, view(p));
    }

    private void query(HttpExchange ex, UUID id) throws IOException {
        if (misbehave(ex)) {
            return;
        }
        Payment p = payments.get(id);
        if (p == null) {
            reply(ex, 404, Map.of("status", "NOT_FOUND"));
            return;
        }
        reply(ex, 200, view(p));
    }

    /** Closing an unknown payment leaves a closed tombstone, so a later create cannot reopen it. */
    private void close(HttpExchange ex, UUID id) throws IOException {
        if (misbehave(ex)) {
            return;
        }
        Payment p = payments.computeIfAbsent(id, k -> new Payment(id, null, null, null, Status.CLOSED));
        synchronized (p) {
            if (p.status == Status.WAITING) {
                p.status = Status.CLOSED;
            }
        }
        reply(ex, 200, view(p));
    }

    private void refund(HttpExchange ex, UUID id, Map<String, Object> body) throws IOException {
        UUID refundId = UUID.fromString(required(body, "refund_id"));
        Payment p = payments.get(id);
        if (p == null) {
            reply(ex, 404, Map.of("status", "NOT_FOUND"));
            return;
        }
        synchronized (p) {
            if (p.status == Status.SUCCESS && p.refunds.add(refundId)) {
                p.status = Status.REFUNDED;
                refunded.incrementAndGet();
            }
        }
        reply(ex, p.status == Status.REFUNDED ? 200 : 409, view(p));
    }

    /**
     * {@code GET /statement?from=&to=[&after=][&limit=]}: the payments whose money was taken in
     * {@code [from, to)}, ordered by (paid_at, payment_id); {@code next} continues after the last one.
     */
    private void statement(HttpExchange ex) throws IOException {
        if (misbehave(ex)) {
            return;
        }
        Map<String, String> q = queryParams(ex.getRequestURI().getRawQuery());
        Instant from = Instant.parse(requiredParam(q, "from"));
        Instant to = Instant.parse(requiredParam(q, "to"));
        int limit = Integer.parseInt(q.getOrDefault("limit", "500"));
        if (limit < 1 || limit > 5000) {
            throw new IllegalArgumentException("limit must be 1..5000");
        }
        Comparator<Payment> order =
                Comparator.comparing((Payment p) -> p.paidAt).thenComparing(p -> p.paymentId);
        String after = q.get("after");
        Predicate<Payment> pastCursor = p -> true;
        if (after != null) {
            String[] at = after.split("\\|", 2);
            if (at.length != 2) {
                throw new IllegalArgumentException("after must be <paid_at>|<payment_id>");
            }
            Instant paidAt = Instant.parse(at[0]);
            UUID id = UUID.fromString(at[1]);
            pastCursor = p -> p.paidAt.isAfter(paidAt) || p.paidAt.equals(paidAt) && p.paymentId.compareTo(id) > 0;
        }
        List<Payment> page = payments.values().stream()
                .filter(p -> p.paidAt != null && !p.paidAt.isBefore(from) && p.paidAt.isBefore(to))
                .filter(pastCursor)
                .sorted(order)
                .limit(limit + 1L)
                .toList();
        Map<String, Object> out = new LinkedHashMap<>();
        List<Payment> shown = page.subList(0, Math.min(limit, page.size()));
        out.put("entries", shown.stream().map(PaySim::view).toList());
        if (page.size() > limit) {
            Payment last = shown.getLast();
            out.put("next", last.paidAt + "|" + last.paymentId);
        }
        reply(ex, 200, out);
    }

    private static Map<String, String> queryParams(String raw) {
        Map<String, String> q = new HashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    q.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return q;
    }

    private static String requiredParam(Map<String, String> q, String name) {
        String v = q.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(name + " is required");
        }
        return v;
    }

    private boolean misbehave(HttpExchange ex) throws IOException {
        Knobs k = knobs;
        if (k.queryDelayMs() > 0) {
            try {
                Thread.sleep(k.queryDelayMs());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (k.queryFailurePercent() > 0 && ThreadLocalRandom.current().nextInt(100) < k.queryFailurePercent()) {
            reply(ex, 503, Map.of("error", "simulated channel failure"));
            return true;
        }
        return false;
    }

    private static Map<String, Object> view(Payment p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("payment_id", p.paymentId.toString());
        if (p.orderId != null) {
            m.put("order_id", p.orderId.toString());
            m.put("amount", p.amount.toPlainString());
            m.put("provider_transaction_id", p.providerTransactionId);
            m.put("pay_url", "/payments/" + p.paymentId + "/pay");
        }
        m.put("status", p.status.name());
        if (p.paidAt != null) {
            m.put("paid_at", p.paidAt.toString());
        }
        return m;
    }

    private static String required(Map<String, Object> body, String field) {
        Object v = body.get(field);
        if (v == null || v.toString().isBlank()) {
            throw new IllegalArgumentException(field + " is required");
        }
        return v.toString();
    }

    private static int intOr(Map<String, Object> body, String field, int dflt) {
        Object v = body.get(field);
        return v == null ? dflt : Integer.parseInt(v.toString());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> readBody(InputStream in) throws IOException {
        byte[] b = in.readAllBytes();
        return b.length == 0 ? Map.of() : Json.read(b, Map.class);
    }

    private static void reply(HttpExchange ex, int status, Map<?, ?> body) throws IOException {
        byte[] b = Json.bytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    @Override
    public void close() {
        server.stop(0);
        callbacks.shutdownNow();
        log.info(
                "paysim.stopped callbacks_delivered={} callbacks_failed={} refunds={}",
                callbacksDelivered.get(),
                callbacksFailed.get(),
                refunded.get());
    }
}
