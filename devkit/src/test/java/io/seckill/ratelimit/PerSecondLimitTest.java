package io.seckill.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PerSecondLimitTest {

    @Test
    @DisplayName("a cap of 3 gives 3 permits and refuses the 4th in the same second; a cap of 0 refuses nothing")
    void capsTheSecond() {
        PerSecondLimit three = new PerSecondLimit("three", 3);
        assertThat(IntStream.range(0, 4).mapToObj(i -> three.tryAcquire())).containsExactly(true, true, true, false);
        PerSecondLimit none = new PerSecondLimit("none", 0);
        assertThat(IntStream.range(0, 10_000).allMatch(i -> none.tryAcquire())).isTrue();
    }

    @Test
    @DisplayName("a negative cap is refused naming the setting")
    void negativeCap() {
        assertThatThrownBy(() -> new PerSecondLimit("seckill.x.per-second", -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("seckill.x.per-second:");
    }
}
