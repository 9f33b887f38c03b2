package io.seckill.redis;

import java.time.Duration;
import java.util.concurrent.Executor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.retry.FailFast;

/**
 * Redis calls on a buyer's request fail fast while Redis does not answer ({@link FailFast}).
 *
 * <p>A Redis that hangs - its process stopped, a network partition, a server stuck in a slow command -
 * keeps the connection open, so each command waits its whole timeout (two seconds) and holds a request
 * thread. The refusal is {@link NotAnswering}, a {@link RedisException}: admission answers
 * {@code 503 ADMISSION_PAUSED}, the status query reads PostgreSQL. A reply that is an error (a
 * script's) is an answer and does not count. Metrics: {@code redis_breaker_open},
 * {@code redis_breaker_refused_total}, {@code redis_reconnects_total}.
 */
@Component
public class RedisBreaker extends FailFast {

    /** No call answered for this long, as calls time out: the connection is taken for silent. */
    private static final Duration SILENT = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(RedisBreaker.class);

    private final Runnable reconnect;
    private final Executor reconnecting;
    private final Counter reconnects;

    /** Reconnects on a thread of its own: a cluster's node may take its connect timeout to answer. */
    @Autowired
    public RedisBreaker(MeterRegistry meters, Redis redis) {
        this(meters, redis::reconnect, task -> Thread.ofPlatform().name("redis-reconnect").daemon().start(task));
    }

    /**
     * {@code reconnect}: what opening on unanswered calls does to the connection ({@link Redis#reconnect()}),
     * run by {@code reconnecting}.
     */
    public RedisBreaker(MeterRegistry meters, Runnable reconnect, Executor reconnecting) {
        super("redis", e -> e instanceof RedisException && !(e instanceof RedisCommandExecutionException),
                NotAnswering::new, meters);
        this.reconnect = reconnect;
        this.reconnecting = reconnecting;
        this.reconnects = Counter.builder("redis.reconnects")
                .description("Redis connections closed and made anew because no call was answered as calls timed out")
                .register(meters);
    }

    /**
     * Calls went unanswered and none has been answered for a second: the connection is made anew. A server
     * that hangs answers on the new one once it resumes; one that vanished behind a partition or a failover
     * would never answer on the old one. A connection that still answers some calls (a Redis too busy to
     * answer the others in time) is kept: closing it would fail every command in flight on it.
     */
    @Override
    protected void openedOnFailures() {
        if (!unansweredFor(SILENT)) {
            return;
        }
        reconnects.increment();
        log.warn("redis.reconnect: no call answered for over {} ms as calls time out; the connection is made anew",
                SILENT.toMillis());
        reconnecting.execute(() -> {
            try {
                reconnect.run();
            } catch (RuntimeException e) {
                log.error("redis.reconnect_failed error_class={}: {}", e.getClass().getName(), e.getMessage(), e);
            }
        });
    }

    /** Refused without asking Redis: it has not been answering. */
    public static final class NotAnswering extends RedisException {
        private static final long serialVersionUID = 1L;

        NotAnswering() {
            super("Redis is not answering; calls are refused for a second before it is tried again");
        }
    }
}
