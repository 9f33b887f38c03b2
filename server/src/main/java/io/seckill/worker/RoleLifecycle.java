package io.seckill.worker;

import org.springframework.context.SmartLifecycle;

import io.seckill.config.SeckillProperties;

/**
 * A part of the engine that runs only when its role is switched on ({@code seckill.roles}), started
 * after and stopped before the rest of the application: the polling workers and the broker consumers.
 */
public abstract class RoleLifecycle implements SmartLifecycle {

    /** When the roles start (late: after the engines' clients and the broker's topics) and stop (early). */
    public static final int PHASE = Integer.MAX_VALUE - 100;

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

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
