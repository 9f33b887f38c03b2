package io.seckill.worker;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.db.Backlog;
import io.seckill.retry.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A background worker of one role: threads that run passes until stopped ({@link #threads()}, one by
 * default). It never dies and never swallows: a failed pass is logged, counted ({@code <metric>.errors})
 * and backed off exponentially (200 ms doubling to 5 s), then the next pass runs. An idle pass (nothing
 * done) waits {@link #idle}.
 *
 * <p>What a worker does once a second besides its passes - reading its queue's gauges, purging - runs
 * on a housekeeping thread of its own ({@link #everySecond}): a gauge that counts a long queue costs as
 * much as the queue, and on the pass thread it would slow the draining of that very queue.
 */
public abstract class PollingWorker extends RoleLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PollingWorker.class);

    /** After a failed pass: 200 ms doubling to 5 s. */
    private static final Backoff FAILED_PASS = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(5));
    /** How long a stop waits for the worker's threads, all of them together. */
    static final Duration STOP_WAIT = Duration.ofSeconds(5);

    private static final ThreadLocal<Integer> LANE = ThreadLocal.withInitial(() -> 0);

    private final String metric;
    private final Duration idle;
    protected final MeterRegistry meters;
    private final Map<String, Runnable> housekeeping = new LinkedHashMap<>();
    private final List<Thread> threads = new ArrayList<>();

    protected PollingWorker(String role, String metric, Duration idle, SeckillProperties props, MeterRegistry meters) {
        super(role, props);
        this.metric = metric;
        this.idle = idle;
        this.meters = meters;
    }

    /** The worker thread's name (in every log line it writes): the role by default. */
    protected String threadName() {
        return role();
    }

    /** How many threads run passes side by side; each pass claims with a lease owner of its own lane. */
    protected int threads() {
        return 1;
    }

    /** The lane of the calling pass thread: 0 to {@link #threads()} - 1. */
    protected static int lane() {
        return LANE.get();
    }

    /** One pass; returns how much it did (0 = idle). */
    protected abstract int runPass();

    /** Runs {@code task} once a second on the housekeeping thread while the role runs (register before it starts). */
    protected final void everySecond(String name, Runnable task) {
        housekeeping.put(name, task);
    }

    /** The two gauges of the worker's queue - rows waiting, age of the oldest - read once a second by housekeeping. */
    protected final void showBacklog(String pendingName, String oldestAgeName, Supplier<Backlog> reading) {
        BacklogGauges gauges = new BacklogGauges(meters, pendingName, oldestAgeName);
        everySecond("backlog", () -> gauges.show(reading.get()));
    }

    @Override
    protected void startRole() {
        int n = threads();
        for (int i = 0; i < n; i++) {
            int lane = i;
            String name = n == 1 ? threadName() : threadName() + "-" + lane;
            threads.add(Thread.ofPlatform().name(name).daemon().start(() -> {
                LANE.set(lane);
                loop();
            }));
        }
        if (!housekeeping.isEmpty()) {
            threads.add(Thread.ofPlatform()
                    .name(threadName() + "-housekeeping")
                    .daemon()
                    .start(this::housekeep));
        }
    }

    private void loop() {
        long failures = 0;
        while (isRunning()) {
            try {
                int done = runPass();
                failures = 0;
                if (done == 0) {
                    TimeUnit.MILLISECONDS.sleep(idle.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                failures++;
                meters.counter(metric + ".errors").increment();
                log.warn(
                        "{}.pass_failed failures={} error_class={}: {}",
                        metric,
                        failures,
                        e.getClass().getName(),
                        e.getMessage());
                try {
                    TimeUnit.MILLISECONDS.sleep(
                            FAILED_PASS.after((int) Math.min(failures, 64)).toMillis());
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Each task once a second; a failed one is logged and counted like a failed pass, and runs again next second. */
    private void housekeep() {
        while (isRunning()) {
            for (Map.Entry<String, Runnable> task : housekeeping.entrySet()) {
                try {
                    task.getValue().run();
                } catch (RuntimeException e) {
                    meters.counter(metric + ".errors").increment();
                    log.warn(
                            "{}.housekeeping_failed task={} error_class={}: {}",
                            metric,
                            task.getKey(),
                            e.getClass().getName(),
                            e.getMessage());
                }
            }
            try {
                TimeUnit.SECONDS.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Interrupts the worker's threads and waits for them together, {@link #STOP_WAIT} at most: a thread still
     * in a call that does not answer to interrupts (a client waiting out its own timeout) is left to finish
     * it as a daemon, and said so.
     */
    @Override
    protected void stopRole() {
        threads.forEach(Thread::interrupt);
        for (Thread t : StopWait.join(threads, STOP_WAIT)) {
            log.warn(
                    "{}.stop_unfinished thread={} waited_ms={} (still in a call; left to end as a daemon)",
                    metric,
                    t.getName(),
                    STOP_WAIT.toMillis());
        }
        threads.clear();
    }
}
