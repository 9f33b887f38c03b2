package io.seckill.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    @DisplayName("base doubling per failed attempt, capped, never overflowing however long the outage")
    void doublesToTheCap() {
        Backoff b = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30));
        assertThat(b.after(0)).isEqualTo(Duration.ofMillis(500));
        assertThat(b.after(1)).isEqualTo(Duration.ofMillis(500));
        assertThat(b.after(2)).isEqualTo(Duration.ofSeconds(1));
        assertThat(b.after(5)).isEqualTo(Duration.ofSeconds(8));
        assertThat(b.after(7)).isEqualTo(Duration.ofSeconds(30));
        assertThat(b.after(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(30));
        assertThat(new Backoff(Duration.ofDays(1), Duration.ofDays(1000)).after(Integer.MAX_VALUE))
                .isEqualTo(Duration.ofDays(1000));
        assertThat(Backoff.SQL_DELAY.formatted("attempt_count"))
                .contains("attempt_count - 1")
                .contains("16");
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(1)))
                .hasMessageContaining("max");
    }
}
