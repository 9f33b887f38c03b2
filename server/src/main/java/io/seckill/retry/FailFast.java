package io.seckill.retry;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls to one dependency on a buyer's request, refused at once while the dependency does not answer.
 *
 * <p>A dependency that hangs or is gone makes each call wait its whole timeout, and a request thread
 * with it; in a busy sale every thread of the port is soon waiting. Once at least half of the last 20
 * calls failed for want of an answer ({@code noAnswer}: a timeout, a lost or refused connection) or
 * four in five took over a second, calls are refused at once for a second with the caller's own
 * exception ({@code refusal}), which its callers already treat as the dependency being away. Then three
 * calls probe the dependency; answered in time, the breaker closes. {@code <name>_breaker_open} is 1
 * while calls are refused, {@code <name>_breaker_refused_total} counts them, and each change of state is
 * logged ({@code <name>.breaker}).
 */
public class FailFast {

    private static final Logger log = LoggerFactory.getLogger(FailFast.class);

    /** Percent of the window's calls failed for want of an answer that opens the breaker. */
    private static final float FAILURE_RATE = 50;

    private final CircuitBreaker breaker;
    private final Predicate<Throwable> noAnswer;
    /** When a call was last answered (System.nanoTime); a day before this breaker was made until one is. */
    private volatile long lastAnswer = System.nanoTime() - Duration.ofDays(1).toNanos();

    private final Supplier<? extends RuntimeException> refusal;
    private final Counter refused;

    protected FailFast(
            String name,
            Predicate<Throwable> noAnswer,
            Supplier<? extends RuntimeException> refusal,
            MeterRegistry meters) {
        this(name, Tags.empty(), noAnswer, refusal, meters);
    }

    /** One of several breakers of a dependency, told apart by {@code tags} (a server's address, say). */
    protected FailFast(
            String name,
            Tags tags,
            Predicate<Throwable> noAnswer,
            Supplier<? extends RuntimeException> refusal,
            MeterRegistry meters) {
        String label = name + ".breaker"
                + tags.stream().map(t -> " " + t.getKey() + "=" + t.getValue()).collect(Collectors.joining());
        this.breaker = CircuitBreaker.of(
                name,
                CircuitBreakerConfig.custom()
                        .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                        .slidingWindowSize(20)
                        .minimumNumberOfCalls(10)
                        .failureRateThreshold(FAILURE_RATE)
                        .slowCallDurationThreshold(Duration.ofSeconds(1))
                        .slowCallRateThreshold(80)
                        .waitDurationInOpenState(Duration.ofSeconds(1))
                        // half-open after the wait even if no call comes: a breaker of a server no call reaches any
                        // more (its
                        // slots failed over) does not report refusing for good
                        .automaticTransitionFromOpenToHalfOpenEnabled(true)
                        .permittedNumberOfCallsInHalfOpenState(3)
                        .recordException(noAnswer)
                        .build());
        this.refusal = refusal;
        this.noAnswer = noAnswer;
        this.breaker.getEventPublisher().onStateTransition(e -> {
            log.warn(
                    "{} {} -> {}",
                    label,
                    e.getStateTransition().getFromState(),
                    e.getStateTransition().getToState());
            if (e.getStateTransition().getToState() == CircuitBreaker.State.OPEN
                    && breaker.getMetrics().getFailureRate() >= FAILURE_RATE) {
                try {
                    openedOnFailures();
                } catch (RuntimeException failed) {
                    log.error(
                            "{} open_action_failed error_class={}: {}",
                            label,
                            failed.getClass().getName(),
                            failed.getMessage(),
                            failed);
                }
            }
        });
        this.refused = Counter.builder(name + ".breaker.refused")
                .description("calls to " + name + " on buyers' requests refused at once because it was not answering")
                .tags(tags)
                .register(meters);
        Gauge.builder(name + ".breaker.open", breaker, b -> b.getState() == CircuitBreaker.State.OPEN ? 1 : 0)
                .description("1 while calls to " + name + " on buyers' requests are refused at once (not answering)")
                .tags(tags)
                .register(meters);
    }

    /**
     * The breaker has just opened because calls went unanswered (not because they were only slow): what the
     * dependency's client can do about it. Nothing by default.
     */
    protected void openedOnFailures() {}

    /** Whether calls go through as usual: not refused, nor only a few let through to probe the dependency. */
    public boolean isClosed() {
        return breaker.getState() == CircuitBreaker.State.CLOSED;
    }

    /** The call's result; the refusal at once while the dependency is judged not to answer. */
    public <T> T call(Supplier<T> call) {
        try {
            T result = breaker.executeSupplier(call);
            lastAnswer = System.nanoTime();
            return result;
        } catch (CallNotPermittedException e) {
            refused.increment();
            throw refusal.get();
        } catch (RuntimeException e) {
            if (!noAnswer.test(e)) {
                lastAnswer = System.nanoTime();
            }
            throw e;
        }
    }

    /** Whether no call through this breaker has been answered (a result or an error reply) for {@code quiet}. */
    protected boolean unansweredFor(Duration quiet) {
        return System.nanoTime() - lastAnswer > quiet.toNanos();
    }
}
