package io.seckill.failpoint;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failpoints of design 13.3, at those exact points in the code. Off, a failpoint costs one
 * read of an empty map. Armed (configuration {@code seckill.failpoints.<name>=<action>} or the admin
 * call), it fires an action:
 * <ul>
 * <li>{@code throw} - the step fails here (an in-process crash of that worker step);</li>
 * <li>{@code lose-response} - the effect happened but the caller never hears of it;</li>
 * <li>{@code delay:<ms>} - the step stalls;</li>
 * <li>{@code crash} - the process halts at once, no shutdown hooks (a real crash).</li>
 * </ul>
 * Suffix {@code *N} fires N times then disarms; {@code %P} fires with probability P percent.
 */
public final class Failpoints {

    private static final Logger log = LoggerFactory.getLogger(Failpoints.class);

    public static final String AFTER_REDIS_RESERVE = "after_redis_reserve";
    public static final String AFTER_MQ_SEND_BEFORE_REDIS_MARK = "after_mq_send_before_redis_mark";
    public static final String AFTER_INBOX_INSERT = "after_inbox_insert";
    public static final String AFTER_PG_STOCK_DECREMENT = "after_pg_stock_decrement";
    public static final String AFTER_ORDER_INSERT = "after_order_insert";
    public static final String AFTER_PG_COMMIT_BEFORE_ACK = "after_pg_commit_before_ack";
    public static final String DURING_COMMIT_RESPONSE = "during_commit_response";
    public static final String AFTER_COMPENSATION_LUA = "after_compensation_lua";
    public static final String AFTER_PAYMENT_RECORD_INSERT = "after_payment_record_insert";
    public static final String AFTER_CANCEL_PENDING = "after_cancel_pending";

    /** All ten names of design 13.3. */
    public static final List<String> NAMES = List.of(AFTER_REDIS_RESERVE, AFTER_MQ_SEND_BEFORE_REDIS_MARK,
            AFTER_INBOX_INSERT, AFTER_PG_STOCK_DECREMENT, AFTER_ORDER_INSERT, AFTER_PG_COMMIT_BEFORE_ACK,
            DURING_COMMIT_RESPONSE, AFTER_COMPENSATION_LUA, AFTER_PAYMENT_RECORD_INSERT, AFTER_CANCEL_PENDING);

    private static volatile Map<String, Action> armed = Map.of();
    private static final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicLong> FIRED =
            new java.util.concurrent.ConcurrentHashMap<>();

    private Failpoints() {
    }

    /** The failpoint {@code name} is reached. */
    public static void hit(String name) {
        Map<String, Action> current = armed;
        if (current.isEmpty()) {
            return;
        }
        Action a = current.get(name);
        if (a != null) {
            a.fire(name);
        }
    }

    public static synchronized void arm(String name, String spec) {
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("unknown failpoint '" + name + "', known: " + NAMES);
        }
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
            if (!List.of("throw", "lose-response", "delay", "crash").contains(kind)) {
                throw new IllegalArgumentException("unknown failpoint action '" + spec
                        + "' (throw | lose-response | delay:<ms> | crash, optional *N and %P)");
            }
            if (percent < 1 || percent > 100 || times == 0) {
                throw new IllegalArgumentException("failpoint action '" + spec + "': %P must be 1..100 and *N positive");
            }
            return new Action(spec, kind, arg, times, percent);
        }

        void fire(String name) {
            if (percent < 100 && java.util.concurrent.ThreadLocalRandom.current().nextInt(100) >= percent) {
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
            FIRED.computeIfAbsent(name, k -> new java.util.concurrent.atomic.AtomicLong()).incrementAndGet();
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
                default -> throw new FailpointException("failpoint " + name + " (" + kind + ")");
            }
        }
    }
}
