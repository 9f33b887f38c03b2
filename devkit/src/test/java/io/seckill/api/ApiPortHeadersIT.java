package io.seckill.api;

import static io.seckill.support.RawHttp.askUnauthenticated;
import static io.seckill.support.RawHttp.closedByServer;
import static io.seckill.support.RawHttp.connect;
import static io.seckill.support.RawHttp.reader;
import static io.seckill.support.RawHttp.reservePath;
import static io.seckill.support.RawHttp.send;
import static io.seckill.support.RawHttp.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.IntegrationTest;
import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What clients that send a request's line and headers slowly hold of the API port, with the shipped settings. */
class ApiPortHeadersIT extends IntegrationTest {

    private static final int TRICKLERS = 200;

    @Test
    @DisplayName(
            "200 connections trickling a request line or headers a byte every 500 ms (inside the 10 s read timeout) "
                    + "are closed at the 5 s header deadline and counted; an idle kept-alive connection stays open")
    void trickledHeadersAreClosedAtTheDeadline() throws Exception {
        double before = counter("api.request.header.timeouts");
        ScheduledExecutorService pace = Executors.newSingleThreadScheduledExecutor();
        List<Socket> tricklers = new ArrayList<>();
        try (Socket idle = connect(port, 20_000)) {
            assertThat(askUnauthenticated(idle)).isEqualTo(401);
            long start = System.nanoTime();
            for (int i = 0; i < TRICKLERS; i++) {
                Socket s = connect(port, 20_000);
                tricklers.add(s);
                // half never finish the request line, half never finish the headers
                send(
                        s,
                        i % 2 == 0
                                ? "GET /api/v1/orders?x="
                                : "POST " + reservePath(1) + " HTTP/1.1\r\nHost: x\r\nX-Slow: ");
            }
            pace.scheduleAtFixedRate(
                    () -> tricklers.forEach(s -> {
                        try {
                            send(s, "a");
                        } catch (IOException closedByTheServer) {
                            // this one was closed: the others go on
                        }
                    }),
                    500,
                    500,
                    TimeUnit.MILLISECONDS);

            for (Socket s : tricklers) {
                assertThat(closedByServer(s))
                        .as("a connection whose headers are still coming at the deadline")
                        .isTrue();
            }
            assertThat((System.nanoTime() - start) / 1e9)
                    .as("seconds until the last trickler was closed")
                    .isBetween(4.5, 9.0);
            assertThat(counter("api.request.header.timeouts") - before).isEqualTo(TRICKLERS);
            assertThat(askUnauthenticated(idle))
                    .as("the idle connection, idle longer than the header deadline")
                    .isEqualTo(401);
        } finally {
            pace.shutdownNow();
            for (Socket s : tricklers) {
                s.close();
            }
        }
    }

    @Test
    @DisplayName("a request whose headers come a line every 300 ms, whole within the deadline, is answered")
    void slowHeadersWithinTheDeadline() throws Exception {
        double before = counter("api.request.header.timeouts");
        String[] lines = {
            "POST " + reservePath(1) + " HTTP/1.1\r\n",
            "Host: x\r\n",
            "Authorization: Bearer not-a-token\r\n",
            "Content-Type: application/json\r\n",
            "Content-Length: 2\r\n",
            "\r\n{}"
        };
        ScheduledExecutorService pace = Executors.newSingleThreadScheduledExecutor();
        try (Socket s = connect(port, 20_000)) {
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                pace.schedule(
                        () -> {
                            send(s, line);
                            return null;
                        },
                        300L * i,
                        TimeUnit.MILLISECONDS);
            }
            assertThat(status(reader(s))).isEqualTo(401);
        } finally {
            pace.shutdownNow();
        }
        assertThat(counter("api.request.header.timeouts") - before).isZero();
    }
}
