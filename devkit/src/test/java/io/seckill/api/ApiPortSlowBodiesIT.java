package io.seckill.api;

import static io.seckill.support.RawHttp.callbackStart;
import static io.seckill.support.RawHttp.closedByServer;
import static io.seckill.support.RawHttp.connect;
import static io.seckill.support.RawHttp.reader;
import static io.seckill.support.RawHttp.send;
import static io.seckill.support.RawHttp.startedCallbacks;
import static io.seckill.support.RawHttp.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.seckill.support.IntegrationTest;
import io.seckill.support.SmallLimits;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The API port's bound on bodies received after their headers ({@code seckill.api.max-slow-bodies}, 4 here). */
@SmallLimits
class ApiPortSlowBodiesIT extends IntegrationTest {

    @Test
    @DisplayName("with 4 bodies on their way, a fifth is refused 503 BUSY and closed; a body sent with its headers is "
            + "still handled, and a finished body frees its place")
    void slowBodiesAreBounded() throws Exception {
        double busyBefore = counter("api.request.body.refused", "reason", "busy");
        List<Socket> slow = startedCallbacks(port, 4, 2);
        try {
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> meters.get("api.request.body.slow").gauge().value() == 4);

            try (Socket fifth = connect(port, 10_000)) {
                send(fifth, callbackStart(2));
                assertThat(status(reader(fifth))).isEqualTo(503);
                assertThat(closedByServer(fifth))
                        .as("the refused connection is closed")
                        .isTrue();
            }
            assertThat(counter("api.request.body.refused", "reason", "busy") - busyBefore)
                    .isEqualTo(1);

            try (Socket whole = connect(port, 10_000)) {
                send(whole, callbackStart(2) + "}");
                assertThat(status(reader(whole)))
                        .as("a whole request reaches the callback handler, which wants a " + "signature")
                        .isEqualTo(401);
            }

            Socket first = slow.getFirst();
            send(first, "}");
            assertThat(status(reader(first)))
                    .as("the slow body, finished, reaches its handler")
                    .isEqualTo(401);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> meters.get("api.request.body.slow").gauge().value() == 3);
            try (Socket again = connect(port, 10_000)) {
                send(again, callbackStart(2));
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> meters.get("api.request.body.slow").gauge().value() == 4);
                send(again, "}");
                assertThat(status(reader(again))).as("the freed place is taken").isEqualTo(401);
            }
        } finally {
            for (Socket s : slow) {
                s.close();
            }
        }
    }
}
