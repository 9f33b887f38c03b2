package io.seckill.failpoint;

import io.seckill.db.Outage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arms and fires the {@link Failpoint}s at their points in the code. Off, a failpoint costs one
 * read of an empty map. Armed (configuration {@code seckill.failpoints.<name>=<action>} or the admin
 * call), it fires an action:
 * <ul>
 * <li>{@code throw} - the step fails here (an in-process crash of that worker step);</li>
 * <li>{@code lose-response} - the effect happened but the caller never hears of it;</li>
 * <li>{@code lose-connection} - the step fails as the database connection's loss fails it (SQLSTATE 08006);</li>
 * <li>{@code delay:<ms>} - the step stalls;</li>
 * <li>{@code crash} - the process halts at once, no shutdown hooks (a real crash).</li>
 * </ul>
 * Suffix {@code *N} fires N times then disarms; {@code %P} fires with probability P percent.
 */
public final class Failpoints {

    private static final Logger log = LoggerFactory.getLogger(Failpoints.class);

    private static volatile Map<String, Action> armed = Map.of();
    private static final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicLong> FIRED =
            new java.util.concurrent.ConcurrentHashMap<>();

    private Failpoints() {}

    /** The failpoint is reached. */
    public static void hit(Failpoint point) {
        Map<String, Action> current = armed;
        if (current.isEmpty()) {
            return;
        }
        Action a = current.get(point.id());
        if (a != null) {
            a.fire(point.id());
        }
    }

    public static void arm(Failpoint point, String spec) {
        arm(point.id(), spec);
    }

    /** Arms the failpoint named {@code name} (its {@link Failpoint#id()}); an unknown name is refused. */
    public static synchronized void arm(String name, String spec) {
        Failpoint.of(name);
        Action action = Action.parse(spec);
        Map<String, Action> next = new HashMap<>(armed);
        next.put(name, action);
        armed = Map.copyOf(next);
        log.warn("failpoint.armed name={} action={}", name, spec);
    }

    public static synchronized void disarm(String name) {
        Map<String, Action> next = new HashMap<>(armed);
        if (next.remove(name) != null) {
            armed = Map.copyOf(next);
            log.warn("failpoint.disarmed name={}", name);
        }
    }

    public static synchronized void disarmAll() {
        armed = Map.of();
    }

    /** How many times each failpoint has fired in this process. */
    public static Map<String, Long> fired() {
        Map<String, Long> out = new java.util.TreeMap<>();
        FIRED.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    public static Map<String, String> armed() {
        Map<String, String> out = new HashMap<>();
        armed.forEach((k, v) -> out.put(k, v.spec));
        return out;
    }

    /** Thrown by an armed failpoint; never caught as an expected outcome. */
    public static final class FailpointException extends RuntimeException {
        FailpointException(String message) {
            super(message);
        }

        FailpointException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static final class Action {
        final String spec;
        final String kind;
        final long arg;
        final AtomicInteger remaining;
        final int percent;

        private Action(String spec, String kind, long arg, int times, int percent) {
            this.spec = spec;
            this.kind = kind;
            this.arg = arg;
            this.remaining = new AtomicInteger(times);
            this.percent = percent;
        }

        static Action parse(String spec) {
            String s = spec.trim();
            int times = -1;
            int percent = 100;
            int star = s.indexOf('*');
            if (star >= 0) {
                times = Integer.parseInt(s.substring(star + 1));
                s = s.substring(0, star);
            }
            int pct = s.indexOf('%');
            if (pct >= 0) {
                percent = Integer.parseInt(s.substring(pct + 1));
                s = s.substring(0, pct);
            }
            long arg = 0;
            int colon = s.indexOf(':');
            String kind = colon >= 0 ? s.substring(0, colon) : s;
            if (colon >= 0) {
                arg = Long.parseLong(s.substring(colon + 1));
            }
            if (!List.of("throw", "lose-response", "lose-connection", "delay", "crash")
                    .contains(kind)) {
                throw new IllegalArgumentException("unknown failpoint action '" + spec
                        + "' (throw | lose-response | lose-connection | delay:<ms> | crash, optional *N and %P)");
            }
            if (percent < 1 || percent > 100 || times == 0) {
                throw new IllegalArgumentException(
                        "failpoint action '" + spec + "': %P must be 1..100 and *N positive");
            }
            return new Action(spec, kind, arg, times, percent);
        }

        void fire(String name) {
            if (percent < 100
                    && java.util.concurrent.ThreadLocalRandom.current().nextInt(100) >= percent) {
                return;
            }
            if (remaining.get() >= 0) {
                int left = remaining.getAndDecrement();
                if (left <= 0) {
                    return;
                }
                if (left == 1) {
                    disarm(name);
                }
            }
            FIRED.computeIfAbsent(name, k -> new java.util.concurrent.atomic.AtomicLong())
                    .incrementAndGet();
            log.warn("failpoint.fired name={} action={}", name, spec);
            switch (kind) {
                case "delay" -> {
                    try {
                        TimeUnit.MILLISECONDS.sleep(arg);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new FailpointException("failpoint " + name + " interrupted");
                    }
                }
                case "crash" -> Runtime.getRuntime().halt(137);
                case "lose-connection" ->
                    throw new FailpointException(
                            "failpoint " + name + " (" + kind + ")",
                            Outage.lostConnection("failpoint " + name + ": connection lost"));
                default -> throw new FailpointException("failpoint " + name + " (" + kind + ")");
            }
        }
    }
}
