package io.seckill.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.seckill.retry.FailFast;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Redis calls on a buyer's request fail fast while the server that serves them does not answer
 * ({@link FailFast}), one breaker per server: on a Redis Cluster a master that hangs refuses the calls
 * for its own slots only, and the other masters' buyers go on.
 *
 * <p>A Redis that hangs - its process stopped, a network partition, a server stuck in a slow command -
 * keeps the connection open, so each command waits its whole timeout (two seconds) and holds a request
 * thread. The refusal is {@link NotAnswering}, a {@link RedisException}: admission answers
 * {@code 503 ADMISSION_PAUSED}, the status query reads PostgreSQL. A reply that is an error (a
 * script's) is an answer and does not count. A call is judged by the server of the key it names; one
 * that reads the slots of several servers at once goes through a breaker of its own ({@link #callAcross}).
 * Metrics, tagged {@code node}: {@code redis_breaker_open}, {@code redis_breaker_refused_total},
 * {@code redis_reconnects_total}.
 */
@Component
public class RedisBreaker {

    /** No call answered for this long, as calls time out: the connection is taken for silent. */
    private static final Duration SILENT = Duration.ofSeconds(1);
    /** The breaker of calls that read the slots of several servers at once. */
    static final String ACROSS = "across";

    private static final Logger log = LoggerFactory.getLogger(RedisBreaker.class);

    private final MeterRegistry meters;
    private final Function<String, String> nodeOf;
    private final Consumer<String> reconnect;
    private final Runnable refresh;
    private final Executor reconnecting;
    private final ConcurrentMap<String, Node> nodes = new ConcurrentHashMap<>();

    /** Reconnects on a thread of its own: a cluster's node may take its connect timeout to answer. */
    @Autowired
    public RedisBreaker(MeterRegistry meters, Redis redis) {
        this(
                meters,
                redis::nodeOf,
                redis::reconnect,
                redis::refreshTopology,
                task -> Thread.ofPlatform().name("redis-reconnect").daemon().start(task));
    }

    /**
     * {@code nodeOf}: the address of the server that serves a key ({@link Redis#nodeOf}); {@code reconnect}:
     * what opening on unanswered calls does to a server's connection ({@link Redis#reconnect(String)}), run
     * by {@code reconnecting}; {@code refresh}: what a breaker opening on failed calls
     * asks of the client ({@link Redis#refreshTopology()}).
     */
    public RedisBreaker(
            MeterRegistry meters,
            Function<String, String> nodeOf,
            Consumer<String> reconnect,
            Runnable refresh,
            Executor reconnecting) {
        this.meters = meters;
        this.nodeOf = nodeOf;
        this.reconnect = reconnect;
        this.refresh = refresh;
        this.reconnecting = reconnecting;
    }

    /** The call's result, made unless the server that serves {@code key} is judged not to answer. */
    public <T> T call(String key, Supplier<T> call) {
        return node(nodeOf.apply(key)).call(call);
    }

    /** A call that reads the slots of several servers in one go, judged apart from the calls of one server. */
    public <T> T callAcross(Supplier<T> call) {
        return node(ACROSS).call(call);
    }

    /** Whether calls go through as usual to every server. */
    public boolean isClosed() {
        return nodes.values().stream().allMatch(FailFast::isClosed);
    }

    private Node node(String address) {
        return nodes.computeIfAbsent(address, Node::new);
    }

    /** The breaker of one server's calls. */
    private final class Node extends FailFast {

        private final String address;
        private final Counter reconnects;

        Node(String address) {
            super(
                    "redis",
                    Tags.of("node", address),
                    e -> e instanceof RedisException && !(e instanceof RedisCommandExecutionException),
                    NotAnswering::new,
                    meters);
            this.address = address;
            this.reconnects = Counter.builder("redis.reconnects")
                    .description(
                            "Redis connections closed and made anew because no call was answered as calls timed out")
                    .tag("node", address)
                    .register(meters);
        }

        /**
         * Calls to this server failed for want of an answer: the cluster's topology is asked for again (its
         * replica may serve its slots by now, and the calls of those slots then go there, through a breaker of
         * their own). And when none has been answered for a second, the connection is made anew: a server
         * that hangs answers on the new one once it resumes; one that vanished behind a partition or a
         * failover would never answer on the old one. A connection that still answers some calls (a Redis too
         * busy to answer the others in time) is kept: closing it would fail every command in flight on it.
         */
        @Override
        protected void openedOnFailures() {
            refresh.run();
            // reads across servers do not say which one is silent: closing every server's connection would fail
            // the calls in flight on the ones that answer, and each server's own breaker sees to its connection
            if (ACROSS.equals(address) || !unansweredFor(SILENT)) {
                return;
            }
            reconnects.increment();
            log.warn(
                    "redis.reconnect node={}: no call answered for over {} ms as calls time out; the connection is made "
                            + "anew",
                    address,
                    SILENT.toMillis());
            reconnecting.execute(() -> {
                try {
                    reconnect.accept(address);
                } catch (RuntimeException e) {
                    log.error(
                            "redis.reconnect_failed node={} error_class={}: {}",
                            address,
                            e.getClass().getName(),
                            e.getMessage(),
                            e);
                }
            });
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
