package io.seckill.cli;

import io.seckill.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** A small HTTP client for the engine's API, used by the demo and the load generator. */
public final class SaleClient {

    private final HttpClient http;
    private final String base;
    private final String reserveBase;
    private final String adminBase;

    /** A client of one listener for every call (the management port's, say). */
    public SaleClient(String base) {
        this(base, base, base);
    }

    /**
     * A client whose reserve calls go to {@code reserveBase} (an instance's admission entry) and whose calls of the
     * operator's plane ({@code /api/v1/admin/...}, the dashboard page) go to {@code adminBase}, its listener.
     */
    public SaleClient(String base, String reserveBase, String adminBase) {
        this.base = base;
        this.reserveBase = reserveBase;
        this.adminBase = adminBase;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    public record Response(int status, Map<String, Object> body) {
        public String code() {
            Object c = body.get("code");
            return c == null ? "HTTP_" + status : c.toString();
        }
    }

    /** The API's base URL. */
    public String base() {
        return base;
    }

    public Response post(String path, String token, Object body) throws IOException, InterruptedException {
        return post(baseFor(path), path, token, body);
    }

    /** The listener that serves {@code path}: the operator's for the admin API and the dashboard. */
    private String baseFor(String path) {
        return path.startsWith("/api/v1/admin") || path.startsWith("/dashboard.html") ? adminBase : base;
    }

    /** The operator's listener's base URL. */
    public String adminBase() {
        return adminBase;
    }

    private Response post(String to, String path, String token, Object body) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(to + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(Json.text(body)));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return send(b.build());
    }

    public Response get(String path, String token) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseFor(path) + path))
                .timeout(Duration.ofSeconds(30))
                .GET();
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return send(b.build());
    }

    /** A plain-text GET (metrics). */
    public String getText(String path) throws IOException, InterruptedException {
        return http.send(
                        HttpRequest.newBuilder(URI.create(base + path))
                                .timeout(Duration.ofSeconds(30))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    @SuppressWarnings("unchecked")
    private Response send(HttpRequest req) throws IOException, InterruptedException {
        HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
        Object parsed = r.body().length == 0 ? Map.of() : Json.read(r.body(), Object.class);
        // an answer that is a list (a sale's inventory, per SKU) is held under "items"
        Map<String, Object> body = parsed instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of("items", parsed);
        return new Response(r.statusCode(), body);
    }

    public Response reserve(String token, long activityId, long skuId, String requestId)
            throws IOException, InterruptedException {
        return post(
                reserveBase,
                "/api/v1/activities/" + activityId + "/skus/" + skuId + "/reservations",
                token,
                Map.of("request_id", requestId));
    }
}
