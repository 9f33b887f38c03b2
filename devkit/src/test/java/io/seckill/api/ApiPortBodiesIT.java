package io.seckill.api;

import static io.seckill.support.RawHttp.askUnauthenticated;
import static io.seckill.support.RawHttp.closedByServer;
import static io.seckill.support.RawHttp.connect;
import static io.seckill.support.RawHttp.reader;
import static io.seckill.support.RawHttp.reservePath;
import static io.seckill.support.RawHttp.send;
import static io.seckill.support.RawHttp.startedCallbacks;
import static io.seckill.support.RawHttp.status;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.seckill.support.IntegrationTest;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/** What clients that send their bodies slowly, or not at all, hold of the API port (Tomcat), with the shipped settings. */
class ApiPortBodiesIT extends IntegrationTest {

    /** More than the port's 64 request threads. */
    private static final int TRICKLERS = 80;

    @Test
    @DisplayName("80 connections trickling payment callback bodies (no token needed) hold no request thread: another "
            + "client is answered at once, and each trickler is answered 408 at the 5 s body deadline and closed, "
            + "with nothing logged as an error")
    void trickledBodiesHoldNoThread() throws Exception {
        double before = counter("api.request.body.refused", "reason", "timeout");
        Logger api = (Logger) LoggerFactory.getLogger("io.seckill.api");
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        api.addAppender(logged);
        ScheduledExecutorService pace = Executors.newSingleThreadScheduledExecutor();
        long start = System.nanoTime();
        List<Socket> tricklers = startedCallbacks(port, TRICKLERS, 2000);
        try {
            // a byte on every connection every 300 ms, well inside the 10 s read timeout: only a whole-body deadline
            // ends them
            pace.scheduleAtFixedRate(
                    () -> tricklers.forEach(s -> {
                        try {
                            send(s, " ");
                        } catch (IOException closedByTheServer) {
                            // this one was answered and closed: the others go on
                        }
                    }),
                    300,
                    300,
                    TimeUnit.MILLISECONDS);
            // every trickler's body is being received: each would hold a request thread if reads blocked
            Awaitility.await()
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> meters.get("api.request.body.slow").gauge().value() >= TRICKLERS);

            long asked = System.nanoTime();
            try (Socket other = connect(port, 20_000)) {
                assertThat(askUnauthenticated(other)).isEqualTo(401);
            }
            assertThat((System.nanoTime() - asked) / 1e9)
                    .as("seconds for another client's answer while %d bodies trickle", TRICKLERS)
                    .isLessThan(2.0);

            for (Socket s : tricklers) {
                assertThat(status(reader(s)))
                        .as("a trickled body at its deadline")
                        .isEqualTo(408);
                assertThat(closedByServer(s))
                        .as("its connection is closed, not read on")
                        .isTrue();
            }
            assertThat((System.nanoTime() - start) / 1e9)
                    .as("seconds until the last trickler was answered")
                    .isBetween(4.5, 12.0);
            assertThat(counter("api.request.body.refused", "reason", "timeout") - before)
                    .isEqualTo(TRICKLERS);
            assertThat(logged.list)
                    .as("errors logged for answered timeouts")
                    .noneMatch(e -> e.getLevel() == Level.ERROR);
        } finally {
            api.detachAppender(logged);
            pace.shutdownNow();
            for (Socket s : tricklers) {
                s.close();
            }
        }
    }

    @Test
    @DisplayName("a request refused by its token before its body came is answered 401 and closed at once, not read on "
            + "for the 10 s read timeout; one whose body came whole keeps its connection")
    void refusedBeforeTheBody() throws Exception {
        try (Socket s = connect(port, 20_000)) {
            send(
                    s,
                    "POST " + reservePath(1) + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer not-a-token\r\n"
                            + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"request_id\"");
            long sent = System.nanoTime();
            assertThat(status(reader(s))).isEqualTo(401);
            assertThat(closedByServer(s)).isTrue();
            assertThat((System.nanoTime() - sent) / 1e9)
                    .as("seconds until closed")
                    .isLessThan(3.0);
        }
        try (Socket s = connect(port, 20_000)) {
            assertThat(askUnauthenticated(s)).isEqualTo(401);
            assertThat(askUnauthenticated(s)).as("the same connection, again").isEqualTo(401);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedChunks")
    @DisplayName(
            "a malformed chunked body (a size that is no number, a chunk without its CRLF, an endless extension) is "
                    + "answered 400 with a problem document, with no error logged, whether it came with the headers or after them")
    void malformedChunkedBody(String chunks) throws Exception {
        long activityId = openSale(5);
        String head = "POST /api/v1/activities/" + activityId
                + "/skus/1/reservations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + userToken(8)
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
        Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        root.addAppender(logged);
        try (Socket s = connect(port, 20_000)) {
            send(s, head + chunks);
            assertThat(statusAndType(s)).isEqualTo("400 application/problem+json");
        }
        try (Socket s = connect(port, 20_000)) {
            send(s, head);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> meters.get("api.request.body.slow").gauge().value() >= 1);
            send(s, chunks);
            assertThat(statusAndType(s)).as("the body after the headers").isEqualTo("400 application/problem+json");
        }
        root.detachAppender(logged);
        assertThat(logged.list)
                .as("nothing logged as an error: a malformed body is the client's")
                .noneMatch(e -> e.getLevel() == Level.ERROR);
        assertThat(count("SELECT count(*) FROM inventory_reservation WHERE activity_id = ?", activityId))
                .isZero();
    }

    /** A size that is no number, a chunk without its CRLF, an extension over the container's bound. */
    static List<String> malformedChunks() {
        return List.of("zz\r\n{}\r\n0\r\n\r\n", "2\r\n{}XX0\r\n\r\n", "2;" + "x".repeat(9000) + "\r\n{}\r\n0\r\n\r\n");
    }

    /** The status and content type of the next answer on {@code s}. */
    private static String statusAndType(Socket s) throws IOException {
        DataInputStream in = reader(s);
        StringBuilder head = new StringBuilder();
        for (int c = in.read(); c >= 0; c = in.read()) {
            head.append((char) c);
            if (head.toString().endsWith("\r\n\r\n")) {
                break;
            }
        }
        String[] lines = head.toString().split("\r\n");
        String type = "";
        for (String line : lines) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-type:")) {
                type = line.substring(13).strip();
            }
        }
        return lines[0].split(" ")[1] + " " + type;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Content-Length", "Transfer-Encoding: chunked"})
    @DisplayName("a reserve call whose body comes in parts, slowly but within the deadline, reaches its handler")
    void slowBodyWithinTheDeadline(String framing) throws Exception {
        long activityId = openSale(5);
        String body = "{\"request_id\":\"" + UUID.randomUUID() + "\"}";
        boolean chunked = framing.startsWith("Transfer-Encoding");
        List<String> frames = new ArrayList<>();
        for (int at = 0; at < body.length(); at += 10) {
            String part = body.substring(at, Math.min(body.length(), at + 10));
            frames.add(chunked ? Integer.toHexString(part.length()) + "\r\n" + part + "\r\n" : part);
        }
        if (chunked) {
            frames.set(frames.size() - 1, frames.getLast() + "0\r\n\r\n");
        }
        ScheduledExecutorService pace = Executors.newSingleThreadScheduledExecutor();
        try (Socket s = connect(port, 20_000)) {
            send(
                    s,
                    "POST /api/v1/activities/" + activityId
                            + "/skus/1/reservations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                            + userToken(7) + "\r\nContent-Type: application/json\r\n"
                            + (chunked ? "Transfer-Encoding: chunked" : "Content-Length: " + body.length())
                            + "\r\n\r\n");
            // the client's pace: a part of the body every 200 ms
            for (int i = 0; i < frames.size(); i++) {
                String frame = frames.get(i);
                pace.schedule(
                        () -> {
                            send(s, frame);
                            return null;
                        },
                        200L * (i + 1),
                        TimeUnit.MILLISECONDS);
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> meters.get("api.request.body.slow").gauge().value() >= 1);
            assertThat(status(reader(s))).as("answered once the last part came").isEqualTo(202);
        } finally {
            pace.shutdownNow();
        }
        // the reservation the handler made reaches PostgreSQL through the order pipeline
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> jdbc.queryForObject(
                                "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND user_id = 7",
                                Long.class,
                                activityId)
                        == 1);
    }
}
