package io.seckill.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.seckill.redis.RedisBreaker;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class FailFastTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    /** Two servers: keys of sale 1 live on a:6379, the others on b:6379. */
    private final List<String> reconnects = new CopyOnWriteArrayList<>();

    private final AtomicInteger refreshes = new AtomicInteger();
    private final RedisBreaker redis = new RedisBreaker(
            meters,
            key -> key.startsWith("{1:") ? "a:6379" : "b:6379",
            reconnects::add,
            refreshes::incrementAndGet,
            Runnable::run);

    @Test
    @DisplayName(
            "ten calls without an answer open the breaker: the next call is refused without being made, and counted")
    void opensOnCallsWithoutAnAnswer() {
        failCalls(10, new RedisCommandTimeoutException("no answer"));
        assertThat(redis.isClosed()).isFalse();
        boolean[] made = {false};
        assertThatThrownBy(() -> redis.call("{1:1}stock", () -> made[0] = true))
                .isInstanceOf(RedisBreaker.NotAnswering.class)
                .hasMessageContaining("not answering");
        assertThat(made[0]).as("the refused call was not made").isFalse();
        assertThat(meters.get("redis.breaker.refused")
                        .tag("node", "a:6379")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(meters.get("redis.breaker.open")
                        .tag("node", "a:6379")
                        .gauge()
                        .value())
                .isEqualTo(1);
        assertThat(reconnects)
                .as("opened on unanswered calls: that server's connection is made anew")
                .containsExactly("a:6379");
        assertThat(refreshes)
                .as("and the cluster asked which master serves its slots now")
                .hasValue(1);
        assertThat(meters.get("redis.reconnects")
                        .tag("node", "a:6379")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    @Test
    @DisplayName("one server not answering refuses its own keys only: the other server's calls go on, and its breaker "
            + "stays closed")
    void oneServerDownRefusesItsKeysOnly() {
        assertThat(redis.call("{2:1}stock", () -> "OK")).isEqualTo("OK");
        failCalls(10, new RedisCommandTimeoutException("no answer"));
        assertThatThrownBy(() -> redis.call("{1:1}stock", () -> "OK")).isInstanceOf(RedisBreaker.NotAnswering.class);
        for (int i = 0; i < 30; i++) {
            assertThat(redis.call("{2:1}stock", () -> "OK")).isEqualTo("OK");
        }
        assertThat(meters.get("redis.breaker.open")
                        .tag("node", "b:6379")
                        .gauge()
                        .value())
                .isZero();
        assertThat(redis.isClosed()).as("not every server's breaker is closed").isFalse();
        assertThat(reconnects).containsExactly("a:6379");
    }

    @Test
    @DisplayName("a breaker no call reaches any more (its server's slots moved to another) stops reporting itself open "
            + "after its second's wait: it is half open, and the next call is let through as a probe")
    void anUnusedBreakerDoesNotStayOpen() {
        failCalls(10, new RedisCommandTimeoutException("no answer"));
        assertThat(meters.get("redis.breaker.open")
                        .tag("node", "a:6379")
                        .gauge()
                        .value())
                .isEqualTo(1);
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(5))
                .until(() -> meters.get("redis.breaker.open")
                                .tag("node", "a:6379")
                                .gauge()
                                .value()
                        == 0);
        assertThat(redis.call("{1:1}stock", () -> "OK")).isEqualTo("OK");
    }

    @Test
    @DisplayName("reads across servers that go unanswered refuse further such reads and ask for the topology, but "
            + "close no server's connection (they do not say which server is silent); single-server calls go on")
    void readsAcrossServersReconnectNothing() {
        for (int i = 0; i < 10; i++) {
            assertThatThrownBy(() -> redis.callAcross(() -> {
                        throw new RedisCommandTimeoutException("no answer");
                    }))
                    .isInstanceOf(RedisCommandTimeoutException.class);
        }
        assertThatThrownBy(() -> redis.callAcross(() -> "OK")).isInstanceOf(RedisBreaker.NotAnswering.class);
        assertThat(reconnects).isEmpty();
        assertThat(refreshes).hasValue(1);
        assertThat(redis.call("{1:1}stock", () -> "OK")).isEqualTo("OK");
    }

    @Test
    @DisplayName("calls that time out while others are answered open the breaker but keep the connection that answers")
    void timeoutsBesideAnswersKeepTheConnection() {
        assertThat(redis.call("{1:1}stock", () -> "OK")).isEqualTo("OK");
        failCalls(9, new RedisCommandTimeoutException("no answer in time"));
        assertThat(redis.isClosed()).isFalse();
        assertThat(reconnects).as("answered a moment ago: busy, not gone").isEmpty();
        assertThat(refreshes).as("the topology is asked for all the same").hasValue(1);
    }

    @Test
    @DisplayName("an error reply is an answer: twenty of them leave the breaker closed, and answered calls go on")
    void errorRepliesAreAnswers() {
        failCalls(20, new RedisCommandExecutionException("ERR a script failed"));
        assertThat(redis.isClosed()).isTrue();
        assertThat(redis.call("{1:1}stock", () -> "OK")).isEqualTo("OK");
        assertThat(reconnects).isEmpty();
        assertThat(refreshes).hasValue(0);
        assertThat(meters.get("redis.breaker.open").gauge().value()).isZero();
    }

    /** {@code n} calls to server a, each failing with {@code failure}, which reaches the caller as it is. */
    private void failCalls(int n, RuntimeException failure) {
        for (int i = 0; i < n; i++) {
            assertThatThrownBy(() -> redis.call("{1:1}stock", () -> {
                        throw failure;
                    }))
                    .isSameAs(failure);
        }
    }
}
