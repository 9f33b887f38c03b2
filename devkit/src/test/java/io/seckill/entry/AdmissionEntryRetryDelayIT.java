package io.seckill.entry;

import static io.seckill.support.RawHttp.UNAUTHENTICATED;
import static io.seckill.support.RawHttp.connect;
import static io.seckill.support.RawHttp.reader;
import static io.seckill.support.RawHttp.request;
import static io.seckill.support.RawHttp.reservePath;
import static io.seckill.support.RawHttp.send;
import static io.seckill.support.RawHttp.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.seckill.reservation.AdmissionLimiter;
import io.seckill.support.IntegrationTest;
import java.io.DataInputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/** An answer that asks the client to come back, written once the retry-answer delay has passed. */
@TestPropertySource(properties = "seckill.admission.entry-limits.retry-answer-delay=400ms")
class AdmissionEntryRetryDelayIT extends IntegrationTest {

    private static final long DELAY_MS = 400;
    /** No sale has this id: a call within the buyer's rate is answered 404 at once. */
    private static final long NO_SALE = 987_654_321L;

    @Autowired
    AdmissionEntry entry;

    @Autowired
    AdmissionLimiter limiter;

    @Test
    @DisplayName("a 429 leaves retry-answer-delay after it is ready, and the connection's later answers wait for it: "
            + "a buyer asking again at once is answered once a delay per connection, in the order asked")
    void answersAskingToComeBackAreHeld() throws Exception {
        String buyer = request(
                reservePath(NO_SALE), "Bearer " + userToken(905), "{\"request_id\":\"" + UUID.randomUUID() + "\"}");
        limiter.setMaxPerUserPerSecond(1);
        List<Integer> statuses = new ArrayList<>();
        long lastAnswerMs;
        try (Socket s = connect(entry.port(), 10_000)) {
            long sent = System.nanoTime();
            // three calls of one buyer (one a second passes: a 404; the rest 429), then one whose token is refused
            send(s, buyer + buyer + buyer + UNAUTHENTICATED);
            DataInputStream in = reader(s);
            for (int i = 0; i < 4; i++) {
                statuses.add(status(in));
            }
            lastAnswerMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
        } finally {
            limiter.setMaxPerUserPerSecond(10);
        }
        // the calls straddle at most one second's edge: at least one of the three is refused
        assertThat(statuses.subList(0, 3))
                .as(statuses.toString())
                .isSubsetOf(404, 429)
                .contains(429);
        assertThat(statuses.get(3))
                .as("the 401 written after the held 429 before it: %s", statuses)
                .isEqualTo(401);
        assertThat(lastAnswerMs).as("the last answer waited for the held one").isGreaterThanOrEqualTo(DELAY_MS);
        Timer limited = meters.find("admission.entry.requests")
                .tag("code", "RATE_LIMITED")
                .timer();
        assertThat(limited).isNotNull();
        assertThat(limited.max(TimeUnit.MILLISECONDS))
                .as("the answer's time counts the delay")
                .isGreaterThanOrEqualTo(DELAY_MS);
    }
}
