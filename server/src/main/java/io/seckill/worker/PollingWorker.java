package io.seckill.worker;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;

/**
 * A background worker of one role: a thread that runs passes until stopped. It never dies and never
 * swallows: a failed pass is logged, counted ({@code <metric>.errors}) and backed off exponentially
 * (100 ms doubling to 5 s), then the next pass runs. An idle pass (nothing done) waits {@link #idle}.
 */
public abstract class PollingWorker implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PollingWorker.class);

    private final String role;
    private final String metric;
    private final Duration idle;
    private final SeckillProperties props;
    protected final MeterRegistry meters;
    private volatile boolean running;
    private Thread thread;

    protected PollingWorker(String role, String metric, Duration idle, SeckillProperties props, MeterRegistry meters) {
        this.role = role;
        this.metric = metric;
        this.idle = idle;
        this.props = props;
        this.meters = meters;
    }

    /** The worker thread's name (in every log line it writes): the role by default. */
    protected String threadName() {
        return role;
    }

    /** One pass; returns how much it did (0 = idle). */
    protected abstract int runPass();

    @Override
    public void start() {
        if (!props.hasRole(role)) {
            return;
        }
        running = true;
        thread = Thread.ofPlatform().name(threadName()).daemon().start(this::loop);
    }

    private void loop() {
        long failures = 0;
        while (running) {
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
                    TimeUnit.MILLISECONDS.sleep(Math.min(5_000, 100L << Math.min(failures, 6)));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public void stop() {
        running = false;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 100;
    }
}
