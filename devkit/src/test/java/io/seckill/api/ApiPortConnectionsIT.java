package io.seckill.api;

import static io.seckill.support.RawHttp.askUnauthenticated;
import static io.seckill.support.RawHttp.connect;
import static io.seckill.support.RawHttp.reservePath;
import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.IntegrationTest;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What a client that stops sending holds of the API port (Tomcat), with the shipped settings. */
class ApiPortConnectionsIT extends IntegrationTest {

    @Test
    @DisplayName(
            "a request whose headers stop half way is closed at the 5 s header deadline, a connection idle after "
                    + "its answer 10 s after its last byte (Tomcat's own default is 60 s); the port answers other clients meanwhile")
    void stalledConnectionsAreClosed() throws Exception {
        try (Socket halfSent = connect(port, 30_000);
                Socket idle = connect(port, 30_000)) {
            halfSent.getOutputStream()
                    .write(("POST " + reservePath(1) + " HTTP/1.1\r\nHost: x\r\n").getBytes(StandardCharsets.US_ASCII));
            halfSent.getOutputStream().flush();
            long halfSentAt = System.nanoTime();
            assertThat(askUnauthenticated(idle)).isEqualTo(401);
            long idleFrom = System.nanoTime();

            CompletableFuture<Double> halfSentClosed =
                    CompletableFuture.supplyAsync(() -> secondsToEnd(halfSent, halfSentAt));
            CompletableFuture<Double> idleClosed = CompletableFuture.supplyAsync(() -> secondsToEnd(idle, idleFrom));
            try (Socket other = connect(port, 30_000)) {
                assertThat(askUnauthenticated(other))
                        .as("another client is answered while the two are held")
                        .isEqualTo(401);
            }
            assertThat(halfSentClosed.get())
                    .as("seconds until the half-sent request's connection ends")
                    .isBetween(4.5, 7.5);
            assertThat(idleClosed.get())
                    .as("seconds until the idle connection ends")
                    .isBetween(9.0, 15.0);
        }
    }

    /** Reads whatever the server still sends (a 408, say) until it ends the connection; seconds from {@code since}. */
    private static double secondsToEnd(Socket s, long since) {
        try {
            InputStream in = s.getInputStream();
            while (in.read() >= 0) {
                continue;
            }
        } catch (SocketException reset) {
            // a reset ends the connection as a close does
        } catch (IOException e) {
            throw new IllegalStateException("the connection was not ended within the read timeout", e);
        }
        return (System.nanoTime() - since) / 1e9;
    }
}
