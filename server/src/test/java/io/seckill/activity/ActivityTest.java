package io.seckill.activity;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.state.SaleStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ActivityTest {

    private static final Instant NOW = Instant.parse("2026-12-05T10:00:00Z");

    private static Activity endingIn(Duration d, int deadlineSeconds, int paymentTimeoutSeconds) {
        return new Activity(
                1,
                "a",
                SaleStatus.OPEN,
                NOW.minusSeconds(60),
                NOW.plus(d),
                deadlineSeconds,
                paymentTimeoutSeconds,
                List.of());
    }

    @Test
    @DisplayName("a terminal hash of a long sale is kept until the sale is no longer judged: its end, the last "
            + "deadline and payment timeout, and a week")
    void longSaleKeepsItsTerminalHashes() {
        Activity month = endingIn(Duration.ofDays(30), 600, 30 * 24 * 3600);
        assertThat(month.judgedUntil())
                .isEqualTo(NOW.plus(Duration.ofDays(30 + 30 + 7)).plusSeconds(600));
        assertThat(month.terminalKeyTtl(NOW)).isEqualTo(Duration.ofDays(67).plusSeconds(600));
    }

    @Test
    @DisplayName("never under a week, even for a sale long over")
    void neverUnderAWeek() {
        assertThat(endingIn(Duration.ofHours(1), 60, 900).terminalKeyTtl(NOW))
                .isEqualTo(Duration.ofDays(7).plusHours(1).plusSeconds(960));
        assertThat(endingIn(Duration.ofDays(-60), 60, 900).terminalKeyTtl(NOW)).isEqualTo(Duration.ofDays(7));
    }
}
