package io.seckill.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.seckill.redis.RedisBreaker;

class FailFastTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final RedisBreaker redis = new RedisBreaker(meters);

    @Test
    @DisplayName("ten calls without an answer open the breaker: the next call is refused without being made, and counted")
    void opensOnCallsWithoutAnAnswer() {
        for (int i = 0; i < 10; i++) {
            assertThatThrownBy(() -> redis.call(() -> {
                throw new RedisCommandTimeoutException("no answer");
            })).isInstanceOf(RedisCommandTimeoutException.class);
        }
        assertThat(redis.isClosed()).isFalse();
        boolean[] made = {false};
        assertThatThrownBy(() -> redis.call(() -> made[0] = true)).isInstanceOf(RedisBreaker.NotAnswering.class)
                .hasMessageContaining("not answering");
        assertThat(made[0]).as("the refused call was not made").isFalse();
        assertThat(meters.get("redis.breaker.refused").counter().count()).isEqualTo(1);
        assertThat(meters.get("redis.breaker.open").gauge().value()).isEqualTo(1);
    }

    @Test
    @DisplayName("an error reply is an answer: twenty of them leave the breaker closed, and answered calls go on")
    void errorRepliesAreAnswers() {
        for (int i = 0; i < 20; i++) {
            assertThatThrownBy(() -> redis.call(() -> {
                throw new RedisCommandExecutionException("ERR a script failed");
            })).isInstanceOf(RedisCommandExecutionException.class);
        }
        assertThat(redis.isClosed()).isTrue();
        assertThat(redis.call(() -> "OK")).isEqualTo("OK");
        assertThat(meters.get("redis.breaker.open").gauge().value()).isZero();
    }
}
