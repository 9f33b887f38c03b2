package io.seckill.entry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.seckill.api.TokenDecoders;
import io.seckill.config.SeckillProperties;
import io.seckill.support.BoundProperties;
import io.seckill.trace.Traces;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.JwtDecoder;

/**
 * The entry's own start and stop, on real sockets: a port it cannot take fails start-up naming the property,
 * and a stop answers the calls in hand before it closes their connections.
 */
class AdmissionEntryStartTest {

    private static AdmissionEntry entry(String port, String roles) {
        SeckillProperties props =
                BoundProperties.bind(Map.of("seckill.roles", roles, "seckill.admission.entry-port", port));
        return new AdmissionEntry(
                props,
                null,
                new TokenDecoders(props.jwt(), Clock.systemUTC()),
                new SimpleMeterRegistry(),
                null,
                65_536,
                "127.0.0.1");
    }

    @Test
    @DisplayName(
            "the entry listens on the port it is given and lets it go when stopped; off by default and without the api role")
    void startsAndStops() {
        AdmissionEntry entry = entry("0", "api");
        entry.start();
        try {
            assertThat(entry.isRunning()).isTrue();
            assertThat(entry.port()).isPositive();
        } finally {
            entry.stop();
        }
        assertThat(entry.port()).isEqualTo(-1);
        AdmissionEntry off = entry("-1", "api");
        off.start();
        assertThat(off.port()).isEqualTo(-1);
        off.stop();
        AdmissionEntry worker = entry("0", "order-consumer");
        worker.start();
        assertThat(worker.isRunning()).isFalse();
        assertThat(worker.port()).isEqualTo(-1);
    }

    @RepeatedTest(5)
    @DisplayName("a call in hand when the entry stops is answered through its connection, and the stop waits for it; "
            + "the door is closed meanwhile (five stops: the answer's write races the connection's close)")
    void aCallInHandIsAnsweredWhenTheEntryStops() throws Exception {
        CountDownLatch asked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // a token check that holds until released (a slow identity provider, say): the call in hand
        JwtDecoder held = token -> {
            asked.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new BadJwtException("no key for this token");
        };
        SeckillProperties props =
                BoundProperties.bind(Map.of("seckill.roles", "api", "seckill.admission.entry-port", "0"));
        AdmissionEntry entry = new AdmissionEntry(
                props,
                null,
                TokenDecoders.of(held, held),
                new SimpleMeterRegistry(),
                Traces.none(),
                65_536,
                "127.0.0.1");
        HttpClient http = HttpClient.newHttpClient();
        try {
            entry.start();
            int port = entry.port();
            Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
            String token =
                    b64.encodeToString("{\"alg\":\"RS256\",\"kid\":\"k1\"}".getBytes(StandardCharsets.UTF_8)) + "."
                            + b64.encodeToString("{\"sub\":\"7\"}".getBytes(StandardCharsets.UTF_8)) + "."
                            + b64.encodeToString(new byte[256]);
            CompletableFuture<HttpResponse<String>> answer = http.sendAsync(
                    HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + port + "/api/v1/activities/1/skus/1/reservations"))
                            .header("Authorization", "Bearer " + token)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"request_id\":\"r-1\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(asked.await(10, TimeUnit.SECONDS))
                    .as("the call reached the token check")
                    .isTrue();

            CompletableFuture<Void> stopping = CompletableFuture.runAsync(entry::stop);
            assertThat(stopping).as("the stop waits for the call in hand").isNotDone();
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> entry.port() == -1);
            try (Socket late = new Socket()) {
                assertThatThrownBy(() -> late.connect(new InetSocketAddress("127.0.0.1", port), 2_000))
                        .as("no new connection once the stop began")
                        .isInstanceOf(IOException.class);
            }
            assertThat(stopping).isNotDone();

            release.countDown();
            HttpResponse<String> r = answer.get(10, TimeUnit.SECONDS);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(401);
            assertThat(r.body()).contains("UNAUTHORIZED");
            stopping.get(10, TimeUnit.SECONDS);
        } finally {
            release.countDown();
            entry.stop();
            http.close();
        }
    }

    @Test
    @DisplayName("a port already taken fails start-up with a message naming seckill.admission.entry-port")
    void takenPortFailsStartUp() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            AdmissionEntry entry = entry(Integer.toString(taken.getLocalPort()), "api");
            assertThatThrownBy(entry::start)
                    .hasMessageStartingWith("seckill.admission.entry-port")
                    .hasMessageContaining(Integer.toString(taken.getLocalPort()));
            assertThat(entry.isRunning()).isFalse();
            assertThat(entry.port()).isEqualTo(-1);
        }
    }
}
