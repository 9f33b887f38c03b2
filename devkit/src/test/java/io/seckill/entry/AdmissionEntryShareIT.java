package io.seckill.entry;

import static io.seckill.support.RawHttp.askUnauthenticated;
import static io.seckill.support.RawHttp.connectFrom;
import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.IntegrationTest;
import java.net.Socket;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * One address's share of the admission entry's calls, refused before any token is checked. Its refusals are answered
 * at once here, so that twenty calls fit in the second the share is counted over.
 */
@TestPropertySource(
        properties = {
            "seckill.admission.entry-limits.max-calls-per-address-per-second=5",
            "seckill.admission.entry-limits.retry-answer-delay=0s"
        })
class AdmissionEntryShareIT extends IntegrationTest {

    @Autowired
    AdmissionEntry entry;

    @Test
    @DisplayName("past max-calls-per-address-per-second an address's calls are answered 429 with Retry-After before "
            + "their token is looked at (a bad token gets 429, not 401); another address is answered as usual")
    void oneAddressOverItsShare() throws Exception {
        Map<Integer, Integer> answers = new TreeMap<>();
        try (Socket flooding = connectFrom("127.0.0.4", entry.port(), 5_000)) {
            for (int i = 0; i < 20; i++) {
                answers.merge(askUnauthenticated(flooding), 1, Integer::sum);
            }
        }
        // 20 calls within one second, or two if they straddle one: at most 10 within the share
        assertThat(answers.keySet()).as(answers.toString()).isSubsetOf(401, 429);
        assertThat(answers.getOrDefault(429, 0)).as(answers.toString()).isGreaterThanOrEqualTo(10);
        assertThat(meters.find("admission.entry.requests")
                        .tag("code", "TOO_MANY_REQUESTS")
                        .timer()
                        .count())
                .isGreaterThanOrEqualTo(10);
        try (Socket other = connectFrom("127.0.0.5", entry.port(), 5_000)) {
            assertThat(askUnauthenticated(other)).as("another address").isEqualTo(401);
        }
    }
}
