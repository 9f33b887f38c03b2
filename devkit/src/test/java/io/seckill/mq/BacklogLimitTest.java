package io.seckill.mq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class BacklogLimitTest {

    private long sequence;

    private OrderBacklog.Reading reading(long ageMs) {
        return new OrderBacklog.Reading(++sequence, sequence * 500_000_000L, ageMs, -1, -1);
    }

    /** A 10 s limit resuming at {@code resumeFraction} of it, paused by two readings of {@code ageMs}. */
    private BacklogLimit pausedAt(double resumeFraction, long ageMs) {
        BacklogLimit limit = new BacklogLimit(Duration.ofSeconds(10), resumeFraction);
        limit.update(reading(ageMs));
        assertThat(limit.update(reading(ageMs)))
                .as("paused by two readings of %d ms", ageMs)
                .isTrue();
        return limit;
    }

    @Test
    @DisplayName("two readings in a row over the limit pause; one over between readings under it does not")
    void twoInARowPause() {
        BacklogLimit limit = new BacklogLimit(Duration.ofSeconds(10), 0.5);
        assertThat(limit.update(reading(11_000))).as("one stale reading").isFalse();
        assertThat(limit.update(reading(3_000))).isFalse();
        assertThat(limit.update(reading(11_000))).isFalse();
        assertThat(limit.update(reading(10_000)))
                .as("at the limit is not over it")
                .isFalse();
        assertThat(limit.update(reading(12_000))).isFalse();
        assertThat(limit.update(reading(12_500))).as("the second in a row").isTrue();
        assertThat(limit.paused()).isTrue();
    }

    @Test
    @DisplayName("a pause holds between half the limit and the limit, and ends at half of it or under")
    void resumesUnderTheFraction() {
        BacklogLimit limit = pausedAt(0.5, 20_000);
        assertThat(limit.update(reading(9_000)))
                .as("under the limit, over half of it")
                .isTrue();
        assertThat(limit.update(reading(5_001))).isTrue();
        assertThat(limit.update(reading(5_000))).as("half the limit").isFalse();
        assertThat(limit.update(reading(11_000)))
                .as("paused again only by two in a row")
                .isFalse();
    }

    @Test
    @DisplayName("with a resume fraction of 1 the first reading at or under the limit ends the pause")
    void resumeAtTheLimit() {
        assertThat(pausedAt(1.0, 15_000).update(reading(10_000))).isFalse();
    }

    @Test
    @DisplayName("an unknown age keeps the state either way; a reading seen before counts once")
    void unknownAndRepeatedReadings() {
        BacklogLimit limit = new BacklogLimit(Duration.ofSeconds(10), 0.5);
        OrderBacklog.Reading over = reading(30_000);
        assertThat(limit.update(over)).isFalse();
        assertThat(limit.update(over))
                .as("the same reading again is not a second one")
                .isFalse();
        assertThat(limit.update(reading(-1))).as("unknown while running").isFalse();
        assertThat(limit.update(reading(30_000)))
                .as("an unknown between two over does not reset the count")
                .isTrue();
        assertThat(limit.update(reading(-1))).as("unknown while paused").isTrue();
        OrderBacklog.Reading old = new OrderBacklog.Reading(1, 0, 0, 0, 0);
        assertThat(limit.update(old)).as("an older reading changes nothing").isTrue();
    }

    @Test
    @DisplayName("a new limit counts from the next reading; a limit of zero or a fraction outside (0, 1] is refused")
    void newLimitAndBadArguments() {
        BacklogLimit limit = new BacklogLimit(Duration.ofSeconds(10), 0.5);
        limit.update(reading(8_000));
        limit.set(Duration.ofSeconds(2), 0.5);
        assertThat(limit.limitMs()).isEqualTo(2_000);
        assertThat(limit.update(reading(3_000))).isFalse();
        assertThat(limit.update(reading(3_000))).isTrue();
        assertThatThrownBy(() -> new BacklogLimit(Duration.ZERO, 0.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> new BacklogLimit(Duration.ofSeconds(1), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resumeFraction");
        assertThatThrownBy(() -> new BacklogLimit(Duration.ofSeconds(1), 1.5))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
