package io.seckill.worker;

import io.seckill.config.SeckillProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * A part of the engine that runs only when its role is switched on ({@code seckill.roles}), started
 * after and stopped before the rest of the application: the polling workers and the broker consumers.
 *
 * <p>When the application closes, the parts of one phase stop side by side, each on a thread of its own
 * ({@link #stop(Runnable)}): a part waiting on a broker that no longer answers (a consumer unregistering
 * from it, a worker's call running out its timeout) holds the shutdown for its own wait, not for the sum
 * of every part's. Spring waits for all of a phase up to {@code spring.lifecycle.timeout-per-shutdown-phase}.
 */
public abstract class RoleLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RoleLifecycle.class);

    /**
     * When the roles start (late: after the engines' clients, the web server and the broker's topics) and
     * stop: after the API port has finished the calls in hand (Spring Boot's graceful shutdown of the web
     * server, one phase earlier), so that a reservation taken there during the stop still reaches a running
     * sender; before the engines' clients close.
     */
    public static final int PHASE = WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE - 100;

    private final String role;
    /** The engine's settings, for the role's own. */
    protected final SeckillProperties props;

    private volatile boolean running;

    protected RoleLifecycle(String role, SeckillProperties props) {
        this.role = role;
        this.props = props;
    }

    protected String role() {
        return role;
    }

    /** Starts the role's work (its role is on). */
    protected abstract void startRole();

    /** Stops the role's work; {@link #isRunning()} is already false. */
    protected abstract void stopRole();

    @Override
    public final void start() {
        if (!props.hasRole(role)) {
            return;
        }
        running = true;
        try {
            startRole();
        } catch (RuntimeException e) {
            running = false;
            throw e;
        }
    }

    @Override
    public final void stop() {
        running = false;
        stopRole();
    }

    /** Stops on a thread of its own and calls {@code done} when stopped, whether or not the stop failed. */
    @Override
    public final void stop(Runnable done) {
        running = false;
        String part = getClass().getSimpleName();
        Thread.ofPlatform().name(part + "-stop").daemon().start(() -> {
            long started = System.nanoTime();
            try {
                stopRole();
                log.info(
                        "role.stopped role={} part={} took_ms={}",
                        role,
                        part,
                        (System.nanoTime() - started) / 1_000_000);
            } catch (RuntimeException e) {
                log.error(
                        "role.stop_failed role={} part={} error_class={}",
                        role,
                        part,
                        e.getClass().getName(),
                        e);
            } finally {
                done.run();
            }
        });
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
