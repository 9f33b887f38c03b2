package io.seckill.worker;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.seckill.config.SeckillProperties;
import io.seckill.retry.Backoff;

/**
 * A background worker of one role: a thread that runs passes until stopped. It never dies and never
 * swallows: a failed pass is logged, counted ({@code <metric>.errors}) and backed off exponentially
 * (100 ms doubling to 5 s), then the next pass runs. An idle pass (nothing done) waits {@link #idle}.
 */
public abstract class PollingWorker extends RoleLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PollingWorker.class);

    /** After a failed pass: 200 ms doubling to 5 s. */
    private static final Backoff FAILED_PASS = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(5));

    private final String metric;
    private final Duration idle;
    protected final MeterRegistry meters;
    private Thread thread;

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

    /** One pass; returns how much it did (0 = idle). */
    protected abstract int runPass();

    @Override
    protected void startRole() {
        thread = Thread.ofPlatform().name(threadName()).daemon().start(this::loop);
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
                log.warn("{}.pass_failed failures={} error_class={}: {}", metric, failures, e.getClass().getName(),
                        e.getMessage());
                try {
                    TimeUnit.MILLISECONDS.sleep(FAILED_PASS.after((int) Math.min(failures, 64)).toMillis());
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    protected void stopRole() {
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

}
