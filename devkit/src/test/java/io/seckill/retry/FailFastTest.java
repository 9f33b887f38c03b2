package io.seckill.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.seckill.redis.RedisBreaker;

class FailFastTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AtomicInteger reconnects = new AtomicInteger();
    private final RedisBreaker redis = new RedisBreaker(meters, reconnects::incrementAndGet, Runnable::run);

    @Test
    @DisplayName("ten calls without an answer open the breaker: the next call is refused without being made, and counted")
    void opensOnCallsWithoutAnAnswer() {
        failCalls(10, new RedisCommandTimeoutException("no answer"));
        assertThat(redis.isClosed()).isFalse();
        boolean[] made = {false};
        assertThatThrownBy(() -> redis.call(() -> made[0] = true)).isInstanceOf(RedisBreaker.NotAnswering.class)
                .hasMessageContaining("not answering");
        assertThat(made[0]).as("the refused call was not made").isFalse();
        assertThat(meters.get("redis.breaker.refused").counter().count()).isEqualTo(1);
        assertThat(meters.get("redis.breaker.open").gauge().value()).isEqualTo(1);
        assertThat(reconnects).as("opened on unanswered calls: the connection is made anew").hasValue(1);
        assertThat(meters.get("redis.reconnects").counter().count()).isEqualTo(1);
    }

    @Test
    @DisplayName("calls that time out while others are answered open the breaker but keep the connection that answers")
    void timeoutsBesideAnswersKeepTheConnection() {
        assertThat(redis.call(() -> "OK")).isEqualTo("OK");
        failCalls(9, new RedisCommandTimeoutException("no answer in time"));
        assertThat(redis.isClosed()).isFalse();
        assertThat(reconnects).as("answered a moment ago: busy, not gone").hasValue(0);
    }

    @Test
    @DisplayName("an error reply is an answer: twenty of them leave the breaker closed, and answered calls go on")
    void errorRepliesAreAnswers() {
        failCalls(20, new RedisCommandExecutionException("ERR a script failed"));
        assertThat(redis.isClosed()).isTrue();
        assertThat(redis.call(() -> "OK")).isEqualTo("OK");
        assertThat(reconnects).hasValue(0);
        assertThat(meters.get("redis.breaker.open").gauge().value()).isZero();
    }

    /** {@code n} calls through the breaker, each failing with {@code failure}, which reaches the caller as it is. */
    private void failCalls(int n, RuntimeException failure) {
        for (int i = 0; i < n; i++) {
            assertThatThrownBy(() -> redis.call(() -> {
                throw failure;
            })).isSameAs(failure);
        }
    }
}
