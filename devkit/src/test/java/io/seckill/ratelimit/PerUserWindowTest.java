package io.seckill.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PerUserWindowTest {

    @Test
    @DisplayName(
            "a user gets the cap's calls in a second and no more; other users are untouched; the next second starts afresh; 0 is no cap")
    void capPerUserPerSecond() {
        AtomicLong nanos = new AtomicLong(5_000_000_000L);
        PerUserWindow w = new PerUserWindow(nanos::get);
        assertThat(IntStream.range(0, 5).filter(i -> w.tryAcquire(7, 3)).count())
                .isEqualTo(3);
        assertThat(w.tryAcquire(8, 3)).as("another user").isTrue();
        nanos.addAndGet(999_999_999L);
        assertThat(w.tryAcquire(7, 3)).as("still the same second").isFalse();
        nanos.addAndGet(1);
        assertThat(IntStream.range(0, 5).filter(i -> w.tryAcquire(7, 3)).count())
                .as("the next second")
                .isEqualTo(3);
        assertThat(IntStream.range(0, 1000).allMatch(i -> w.tryAcquire(9, 0)))
                .as("no cap")
                .isTrue();
        nanos.set(-1);
        assertThat(w.tryAcquire(7, 1))
                .as("a clock before its origin is a second like any other")
                .isTrue();
        assertThat(w.tryAcquire(7, 1)).isFalse();
    }
}
