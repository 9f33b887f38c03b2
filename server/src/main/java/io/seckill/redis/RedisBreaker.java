package io.seckill.redis;

import java.time.Duration;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Redis calls on a buyer's request fail fast while Redis does not answer.
 *
 * <p>A Redis that hangs - its process stopped, a network partition, a server stuck in a slow command -
 * keeps the connection open, so each command waits its whole timeout (two seconds). In a busy sale the
 * API port's request threads would all be waiting within a second, and status polls and payments
 * with them. Here, once at least half of the last 20 calls failed for want of an answer (a timeout, a
 * lost connection) or four in five took over a second, calls are refused at once for a second, as
 * {@link NotAnswering} - a {@link RedisException}, so every caller treats it as Redis being away
 * (admission answers {@code 503 ADMISSION_PAUSED}, the status query reads PostgreSQL). Then three
 * calls probe Redis; when they are answered in time the breaker closes. A reply that is an error
 * (a script's) is an answer and does not count. {@code redis_breaker_open} is 1 while calls are refused;
 * {@code redis_breaker_refused_total} counts them.
 */
@Component
public class RedisBreaker {

    private static final Logger log = LoggerFactory.getLogger(RedisBreaker.class);

    private final CircuitBreaker breaker;
    private final Counter refused;

    public RedisBreaker(MeterRegistry meters) {
        this.breaker = CircuitBreaker.of("redis", CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(20)
                .minimumNumberOfCalls(10)
                .failureRateThreshold(50)
                .slowCallDurationThreshold(Duration.ofSeconds(1))
                .slowCallRateThreshold(80)
                .waitDurationInOpenState(Duration.ofSeconds(1))
                .permittedNumberOfCallsInHalfOpenState(3)
                .recordException(e -> e instanceof RedisException && !(e instanceof RedisCommandExecutionException))
                .build());
        this.breaker.getEventPublisher().onStateTransition(e -> log.warn("redis.breaker {} -> {}",
                e.getStateTransition().getFromState(), e.getStateTransition().getToState()));
        this.refused = Counter.builder("redis.breaker.refused")
                .description("Redis calls on a buyer's request refused at once because Redis was not answering")
                .register(meters);
        Gauge.builder("redis.breaker.open", breaker, b -> b.getState() == CircuitBreaker.State.OPEN ? 1 : 0)
                .description("1 while Redis calls on buyers' requests are refused at once (Redis not answering)")
                .register(meters);
    }

    /** The call's result; {@link NotAnswering} at once while Redis is judged not to answer. */
    public <T> T call(Supplier<T> call) {
        try {
            return breaker.executeSupplier(call);
        } catch (CallNotPermittedException e) {
            refused.increment();
            throw new NotAnswering();
        }
    }

    /** Refused without asking Redis: it has not been answering. */
    public static final class NotAnswering extends RedisException {
        private static final long serialVersionUID = 1L;

        NotAnswering() {
            super("Redis is not answering; calls are refused for a second before it is tried again");
        }
    }
}
