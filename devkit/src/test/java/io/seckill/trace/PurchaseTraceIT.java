package io.seckill.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.sdk.trace.data.SpanData;
import io.seckill.entry.AdmissionEntry;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TraceCapture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;

class PurchaseTraceIT extends IntegrationTest {

    private static final List<String> HOPS =
            List.of("order-request send", "order-request consume", "outbox relay send", "projection");

    @Autowired
    AdmissionEntry entry;

    @ParameterizedTest(name = "through the admission entry: {0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "one purchase is one trace: HTTP POST (API port or admission entry) -> order message send -> consumer's "
                    + "batch transaction -> outbox relay -> projection, each hop the child of the one before")
    void purchaseIsOneTrace(boolean throughTheEntry) throws Exception {
        long activityId = openSale(3);
        int toPort = throughTheEntry ? entry.port() : port;
        String traceId = HexFormat.of().formatHex(randomBytes(16));
        String callerSpan = HexFormat.of().formatHex(randomBytes(8));
        HttpRequest post = HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + toPort + "/api/v1/activities/" + activityId + "/skus/1/reservations"))
                .header("Authorization", "Bearer " + userToken(42))
                .header("Content-Type", "application/json")
                .header("traceparent", "00-" + traceId + "-" + callerSpan + "-01")
                .POST(HttpRequest.BodyPublishers.ofString("{\"request_id\":\"" + UUID.randomUUID() + "\"}"))
                .build();
        HttpResponse<String> r = HttpClient.newHttpClient().send(post, HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        awaitSettled(activityId, 1);

        Map<String, SpanData> byName = Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> spansOf(traceId),
                        spans -> spans.keySet().containsAll(HOPS)
                                && spans.values().stream()
                                        .anyMatch(s -> s.getParentSpanId().equals(callerSpan)));
        SpanData http = byName.values().stream()
                .filter(s -> s.getParentSpanId().equals(callerSpan))
                .findFirst()
                .orElseThrow();
        assertThat(http.getKind())
                .as("the request's own span continues the caller's")
                .isEqualTo(io.opentelemetry.api.trace.SpanKind.SERVER);
        String parent = http.getSpanId();
        for (String hop : HOPS) {
            SpanData s = byName.get(hop);
            assertThat(s.getParentSpanId())
                    .as(hop + " is the child of the hop before it")
                    .isEqualTo(parent);
            parent = s.getSpanId();
        }
        assertThat(byName.get("order-request consume").getAttributes().asMap().toString())
                .contains("created");
        assertThat(byName.get("outbox relay send").getAttributes().asMap().toString())
                .contains("ORDER_CREATED");
        assertInvariants(activityId, true);
    }

    private static Map<String, SpanData> spansOf(String traceId) {
        return TraceCapture.SPANS.getFinishedSpanItems().stream()
                .filter(s -> s.getTraceId().equals(traceId))
                .collect(Collectors.toMap(SpanData::getName, Function.identity(), (a, b) -> a));
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }
}
