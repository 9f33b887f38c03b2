package io.seckill.entry;

import static io.seckill.support.RawHttp.request;
import static io.seckill.support.RawHttp.reservePath;
import static io.seckill.support.RawHttp.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.seckill.api.Tokens;
import io.seckill.json.Json;
import io.seckill.support.IntegrationTest;
import io.seckill.support.RawHttp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The lean admission entry answers the reserve call exactly as the API port does - the same statuses,
 * codes and fields for every refusal, the same accepted body - and what it admits goes through the
 * whole pipeline under the guarantees.
 */
class AdmissionEntryIT extends IntegrationTest {

    @Autowired
    AdmissionEntry entry;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One request, sent to a port: the sale it is about differs per port so that both start from the same state. */
    private record Call(String name, String method, String path, String token, String contentType, String body) {}

    private record Answer(int status, Map<String, Object> body) {
        Object code() {
            return body.get("code");
        }
    }

    private Answer send(int toPort, Call c) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + toPort + c.path()))
                .timeout(Duration.ofSeconds(10))
                .method(
                        c.method(),
                        c.body() == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(c.body()));
        if (c.token() != null) {
            b.header("Authorization", c.token());
        }
        if (c.contentType() != null) {
            b.header("Content-Type", c.contentType());
        }
        HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        @SuppressWarnings("unchecked")
        Map<String, Object> body = r.body().length == 0 ? Map.of() : Json.read(r.body(), Map.class);
        return new Answer(r.statusCode(), body);
    }

    /** The same sequence of calls, in order, about one fresh sale of 2 units and one that is not open. */
    private List<Call> calls(long open, long closed) {
        String reserve = reservePath(open);
        String json = "application/json";
        String buyer = "Bearer " + userToken(41);
        // each refusal by a buyer of its own: the per-buyer rate limit (shared by both ports) stays out of the way
        java.util.function.LongFunction<String> other = n -> "Bearer " + userToken(1_000 + n);
        String sameRequest = "{\"request_id\":\"" + UUID.nameUUIDFromBytes(("r" + open).getBytes()) + "\"}";
        List<Call> out = new ArrayList<>();
        out.add(new Call("no token", "POST", reserve, null, json, fresh()));
        out.add(new Call("not a bearer token", "POST", reserve, "Basic dXNlcjpwYXNz", json, fresh()));
        out.add(new Call(
                "a token signed with another key",
                "POST",
                reserve,
                "Bearer " + Tokens.user("another-secret-0123456789abcdef0123456789ab", 41, Duration.ofMinutes(5)),
                json,
                fresh()));
        out.add(new Call("an admin token", "POST", reserve, "Bearer " + adminToken(), json, fresh()));
        out.add(new Call(
                "an expired token",
                "POST",
                reserve,
                "Bearer " + Tokens.user(USER_SECRET, 41, Duration.ofMinutes(-5)),
                json,
                fresh()));
        out.add(new Call("no body", "POST", reserve, other.apply(1), json, null));
        out.add(new Call("malformed JSON", "POST", reserve, other.apply(2), json, "{\"request_id\":"));
        out.add(new Call("a JSON array", "POST", reserve, other.apply(3), json, "[1,2]"));
        out.add(new Call("text/plain", "POST", reserve, other.apply(4), "text/plain", fresh()));
        out.add(new Call("no request id", "POST", reserve, other.apply(5), json, "{}"));
        out.add(new Call("a null body", "POST", reserve, other.apply(12), json, "null"));
        out.add(new Call("a request id that is null", "POST", reserve, other.apply(13), json, "{\"request_id\":null}"));
        out.add(new Call(
                "a request id that is a number", "POST", reserve, other.apply(14), json, "{\"request_id\":42}"));
        out.add(new Call(
                "a request id that is an object", "POST", reserve, other.apply(15), json, "{\"request_id\":{}}"));
        out.add(new Call("a JSON string", "POST", reserve, other.apply(16), json, "\"x\""));
        out.add(new Call(
                "a request id that is no UUID", "POST", reserve, other.apply(6), json, "{\"request_id\":\"12345\"}"));
        out.add(new Call(
                "content after the object", "POST", reserve, other.apply(17), json, "{\"request_id\":\"12345\"} {}"));
        out.add(new Call(
                "a repeated request id, the last an object",
                "POST",
                reserve,
                other.apply(18),
                json,
                "{\"request_id\":\"12345\",\"request_id\":{}}"));
        out.add(new Call(
                "a repeated request id, the last no UUID",
                "POST",
                reserve,
                other.apply(19),
                json,
                "{\"request_id\":{\"a\":[1]},\"request_id\":\"12345\"}"));
        out.add(new Call(
                "other fields beside the request id",
                "POST",
                reserve,
                other.apply(20),
                json,
                "{\"x\":[1,{\"y\":null}],\"request_id\":\"12345\",\"z\":true}"));
        out.add(new Call("a body of blanks", "POST", reserve, other.apply(21), json, "  \n "));
        out.add(new Call("a request id that is true", "POST", reserve, other.apply(22), json, "{\"request_id\":true}"));
        out.add(new Call(
                "an activity id that is no number",
                "POST",
                "/api/v1/activities/abc/skus/1/reservations",
                other.apply(7),
                json,
                fresh()));
        out.add(new Call(
                "an unknown activity",
                "POST",
                "/api/v1/activities/9" + open + "/skus/1/reservations",
                other.apply(8),
                json,
                fresh()));
        out.add(new Call(
                "an unknown sku",
                "POST",
                "/api/v1/activities/" + open + "/skus/7/reservations",
                other.apply(9),
                json,
                fresh()));
        out.add(new Call("a sale that is not open", "POST", reservePath(closed), other.apply(10), json, fresh()));
        out.add(new Call(
                "a body over the limit",
                "POST",
                reserve,
                other.apply(11),
                json,
                "{\"request_id\":\"" + "x".repeat(70_000) + "\"}"));
        out.add(new Call("reserve", "POST", reserve, buyer, json, sameRequest));
        out.add(new Call("the same request again", "POST", reserve, buyer, json, sameRequest));
        out.add(new Call("another request of the same buyer", "POST", reserve, buyer, json, fresh()));
        out.add(new Call(
                "a second buyer takes the last unit", "POST", reserve, "Bearer " + userToken(42), json, fresh()));
        out.add(new Call("a third buyer", "POST", reserve, "Bearer " + userToken(43), json, fresh()));
        return out;
    }

    private static String fresh() {
        return "{\"request_id\":\"" + UUID.randomUUID() + "\"}";
    }

    @Test
    @DisplayName(
            "the admission entry answers every reserve call as the API port does: status, code, field and the accepted body")
    void answersAsTheApiPort() throws Exception {
        assertThat(entry.port()).isPositive();
        long[] viaApi = {openSale(2), newActivityId()};
        long[] viaEntry = {openSale(2), newActivityId()};
        createSale(viaApi[1], 2);
        createSale(viaEntry[1], 2);
        List<Call> api = calls(viaApi[0], viaApi[1]);
        List<Call> lean = calls(viaEntry[0], viaEntry[1]);
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < api.size(); i++) {
            Answer a = send(port, api.get(i));
            Answer e = send(entry.port(), lean.get(i));
            String name = api.get(i).name();
            assertThat(e.status())
                    .as(name + ": " + e.body() + " vs the API port's " + a.body())
                    .isEqualTo(a.status());
            assertThat(e.code()).as(name).isEqualTo(a.code());
            assertThat(e.body().get("field")).as(name).isEqualTo(a.body().get("field"));
            assertThat(e.body().keySet()).as(name).isEqualTo(a.body().keySet());
            seen.add(name + " " + a.status() + " " + a.code());
        }
        // the sequence covers each kind of answer, so agreement is not agreement on one status
        assertThat(timed("413"))
                .as("a body over the limit is timed like every other answer")
                .isPositive();
        assertThat(seen)
                .anyMatch(s -> s.endsWith("202 QUEUED"))
                .anyMatch(s -> s.contains("401"))
                .anyMatch(s -> s.contains("400"))
                .anyMatch(s -> s.contains("404"))
                .anyMatch(s -> s.contains("409 SOLD_OUT"))
                .anyMatch(s -> s.contains("409 ALREADY_RESERVED"))
                .anyMatch(s -> s.contains("409 ACTIVITY_NOT_OPEN"))
                .anyMatch(s -> s.contains("413"))
                .anyMatch(s -> s.contains("415"));
        assertThat(send(
                                entry.port(),
                                new Call(
                                        "GET on the reserve path",
                                        "GET",
                                        reservePath(viaEntry[0]),
                                        "Bearer " + userToken(41),
                                        null,
                                        null))
                        .code())
                .isEqualTo("METHOD_NOT_ALLOWED");
        assertThat(send(
                                entry.port(),
                                new Call(
                                        "another path",
                                        "GET",
                                        "/api/v1/reservations/" + UUID.randomUUID(),
                                        "Bearer " + userToken(41),
                                        null,
                                        null))
                        .status())
                .isEqualTo(404);
        awaitSettled(viaEntry[0], 2);
        assertInvariants(viaEntry[0], true);
    }

    @Test
    @DisplayName(
            "300 buyers race for 40 units through the admission entry: 40 QUEUED, the rest SOLD_OUT, 40 orders, one per "
                    + "buyer, every invariant PASS, each answer timed in admission_entry_requests_seconds")
    void raceThroughTheEntry() throws Exception {
        long activityId = openSale(40);
        double before = timed("202");
        List<Future<Answer>> answers = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(32)) {
            for (long user = 1; user <= 300; user++) {
                Call c = new Call(
                        "buyer " + user,
                        "POST",
                        reservePath(activityId),
                        "Bearer " + userToken(50_000 + user),
                        "application/json",
                        fresh());
                answers.add(pool.submit(() -> send(entry.port(), c)));
            }
        }
        long queued = 0;
        long soldOut = 0;
        for (Future<Answer> f : answers) {
            Answer a = f.get();
            queued += a.status() == 202 ? 1 : 0;
            soldOut += "SOLD_OUT".equals(a.code()) ? 1 : 0;
        }
        assertThat(queued).isEqualTo(40);
        assertThat(soldOut).isEqualTo(260);
        awaitSettled(activityId, 40);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(40);
        assertThat(count("SELECT count(DISTINCT user_id) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(40);
        assertInvariants(activityId, true);
        assertThat(timed("202") - before).isEqualTo(40);
    }

    @Test
    @DisplayName(
            "a body over the limit is answered 413 while it is still arriving; the client can go on sending it for "
                    + "a moment without its connection being reset, and then the connection ends")
    void oversizedBodyIsAnsweredNotReset() throws Exception {
        try (java.net.Socket s = RawHttp.connect(entry.port(), 10_000)) {
            RawHttp.send(
                    s,
                    "POST " + reservePath(1) + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + userToken(44)
                            + "\r\nContent-Type: application/json\r\nContent-Length: 300000\r\n\r\n{\"request_id\":\"");
            assertThat(status(RawHttp.reader(s)))
                    .as("answered on the declared length")
                    .isEqualTo(413);
            byte[] chunk = "x".repeat(16 * 1024).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            // 256 KB more after the answer: read and dropped by the entry; a socket closed at once would reset these
            // writes
            for (int i = 0; i < 16; i++) {
                s.getOutputStream().write(chunk);
            }
            s.getOutputStream().flush();
            assertThat(RawHttp.closedByServer(s))
                    .as("the connection ends after the moment")
                    .isTrue();
        }
    }

    @Test
    @DisplayName("a client that resets its connection mid-request is counted in admission_entry_channel_failures_total "
            + "and closed; the entry goes on answering")
    void resetConnectionIsCountedAndClosed() throws Exception {
        long activityId = openSale(1);
        double before = meters.counter("admission.entry.channel.failures", "type", "client_io")
                .count();
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", entry.port())) {
            s.getOutputStream()
                    .write(("POST /api/v1/activities/" + activityId + "/skus/1/reservations HTTP/1.1\r\n"
                                    + "Host: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
                            .getBytes());
            s.getOutputStream().flush();
            s.setSoLinger(true, 0);
        }
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> meters.counter("admission.entry.channel.failures", "type", "client_io")
                                .count()
                        > before);
        Answer a = send(
                entry.port(),
                new Call(
                        "after the reset",
                        "POST",
                        reservePath(activityId),
                        "Bearer " + userToken(77),
                        "application/json",
                        fresh()));
        assertThat(a.status()).as(a.body().toString()).isEqualTo(202);
        awaitSettled(activityId, 1);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("pipelined requests on one connection are answered in their order (a slow reservation first, a fast "
            + "refusal after it)")
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        long activityId = openSale(2);
        String reserve = request(reservePath(activityId), "Bearer " + userToken(88), fresh());
        String refused = request(reservePath(activityId), "Bearer not-a-token", fresh());
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", entry.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write((reserve + refused + reserve.replace(userToken(88), userToken(89))).getBytes());
            s.getOutputStream().flush();
            java.io.DataInputStream in = RawHttp.reader(s);
            assertThat(List.of(status(in), status(in), status(in))).containsExactly(202, 401, 202);
        }
        awaitSettled(activityId, 2);
        assertInvariants(activityId, true);
    }

    private double timed(String status) {
        return meters.find("admission.entry.requests").tag("status", status).timers().stream()
                .mapToLong(Timer::count)
                .sum();
    }
}
