package io.seckill.entry;

import static io.seckill.support.RawHttp.UNAUTHENTICATED;
import static io.seckill.support.RawHttp.askUnauthenticated;
import static io.seckill.support.RawHttp.closedByServer;
import static io.seckill.support.RawHttp.connect;
import static io.seckill.support.RawHttp.connectFrom;
import static io.seckill.support.RawHttp.reservePath;
import static io.seckill.support.RawHttp.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.support.IntegrationTest;
import io.seckill.support.RawHttp;
import io.seckill.support.SmallLimits;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** What one hostile client can hold of the admission entry: connections, a trickled request, an endless pipeline. */
@SmallLimits
class AdmissionEntryLimitsIT extends IntegrationTest {

    @Autowired
    AdmissionEntry entry;

    @Autowired
    MeterRegistry meters;

    /** Connections of the test before are closed on the server's side too. */
    @BeforeEach
    void noConnectionOpen() {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> open() == 0);
    }

    @Test
    @DisplayName("past max-connections a new connection is closed before anything is read and counted; the held ones "
            + "are still answered, and a closed one frees its place")
    void connectionLimit() throws Exception {
        double before = failures("connection_limit");
        List<Socket> held = new ArrayList<>();
        try {
            // from four addresses: one address may hold only three
            for (int i = 0; i < 4; i++) {
                held.add(connectFrom("127.0.0." + (10 + i), entry.port(), 5_000));
            }
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> open() == 4);
            try (Socket fifth = connect(entry.port(), 5_000)) {
                assertThat(closedByServer(fifth))
                        .as("the fifth connection is closed by the entry")
                        .isTrue();
            }
            assertThat(failures("connection_limit") - before).isEqualTo(1);
            assertThat(askUnauthenticated(held.getFirst()))
                    .as("a held connection is still answered")
                    .isEqualTo(401);

            held.removeLast().close();
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> open() == 3);
            try (Socket again = connect(entry.port(), 5_000)) {
                assertThat(askUnauthenticated(again))
                        .as("the freed place is taken")
                        .isEqualTo(401);
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    @DisplayName("a request trickled a header line at a time is closed at request-timeout and counted; a whole request "
            + "beside it is answered")
    void trickledRequestIsClosed() throws Exception {
        double before = failures("request_timeout");
        try (Socket slow = connect(entry.port(), 5_000)) {
            OutputStream out = slow.getOutputStream();
            out.write(("POST " + reservePath(1) + " HTTP/1.1\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            long start = System.nanoTime();
            // the client's pace: a header line every 200 ms; a write failing (the entry closed) ends the schedule
            ScheduledExecutorService trickler = Executors.newSingleThreadScheduledExecutor();
            AtomicInteger lines = new AtomicInteger();
            try {
                trickler.scheduleAtFixedRate(
                        () -> {
                            try {
                                out.write(("X-Trickle-" + lines.getAndIncrement() + ": a\r\n")
                                        .getBytes(StandardCharsets.US_ASCII));
                                out.flush();
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        },
                        200,
                        200,
                        TimeUnit.MILLISECONDS);
                assertThat(closedByServer(slow))
                        .as("the trickling connection is closed")
                        .isTrue();
                double seconds = (System.nanoTime() - start) / 1e9;
                assertThat(seconds)
                        .as("closed at the 1 s request timeout, not by the 5 s read timeout")
                        .isBetween(0.8, 4.0);
                assertThat(lines.get())
                        .as("the client was still trickling when it was closed")
                        .isGreaterThanOrEqualTo(3);
            } finally {
                trickler.shutdownNow();
            }
            assertThat(failures("request_timeout") - before).isEqualTo(1);
        }
        try (Socket normal = connect(entry.port(), 5_000)) {
            assertThat(askUnauthenticated(normal)).as("a whole request").isEqualTo(401);
        }
    }

    @Test
    @DisplayName("one address holds at most max-connections-per-address connections: its next is closed and counted, "
            + "while another address still connects and is answered")
    void addressLimit() throws Exception {
        double before = failures("address_limit");
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                held.add(connectFrom("127.0.0.2", entry.port(), 5_000));
            }
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> open() == 3);
            try (Socket fourth = connectFrom("127.0.0.2", entry.port(), 5_000)) {
                assertThat(closedByServer(fourth))
                        .as("the address's fourth connection is closed by the entry")
                        .isTrue();
            }
            assertThat(failures("address_limit") - before).isEqualTo(1);
            try (Socket other = connectFrom("127.0.0.3", entry.port(), 5_000)) {
                assertThat(askUnauthenticated(other))
                        .as("another address connects and is answered")
                        .isEqualTo(401);
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    @DisplayName("a connection that sends nothing is closed at first-byte-timeout and counted, long before the idle "
            + "timeout; one that sends its request in time is answered")
    void silentConnectionIsClosed() throws Exception {
        double before = failures("first_byte_timeout");
        long start = System.nanoTime();
        try (Socket silent = connect(entry.port(), 10_000)) {
            assertThat(closedByServer(silent))
                    .as("the silent connection is closed")
                    .isTrue();
            assertThat((System.nanoTime() - start) / 1e9)
                    .as("closed at the 2 s first-byte timeout, not the 60 s idle timeout")
                    .isBetween(1.5, 6.0);
        }
        assertThat(failures("first_byte_timeout") - before).isEqualTo(1);
        try (Socket prompt = connect(entry.port(), 5_000)) {
            assertThat(askUnauthenticated(prompt)).isEqualTo(401);
        }
    }

    @Test
    @DisplayName("200 requests pipelined at once: the connection is not read past max-pipelined unanswered calls, and "
            + "every request is still answered, in order")
    void endlessPipelineIsReadAtTheAnswersPace() throws Exception {
        double pausedBefore = meters.counter("admission.entry.read.paused").count();
        try (Socket s = connect(entry.port(), 5_000)) {
            CompletableFuture<Void> written = CompletableFuture.runAsync(() -> {
                try {
                    s.getOutputStream().write(UNAUTHENTICATED.repeat(200).getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            DataInputStream in = RawHttp.reader(s);
            for (int i = 0; i < 200; i++) {
                assertThat(status(in)).as("answer " + i).isEqualTo(401);
            }
            written.join();
        }
        assertThat(meters.counter("admission.entry.read.paused").count())
                .as("reading paused at 4 unanswered")
                .isGreaterThan(pausedBefore);
    }

    private double open() {
        return meters.get("admission.entry.connections").gauge().value();
    }

    private double failures(String type) {
        return meters.counter("admission.entry.channel.failures", "type", type).count();
    }
}
