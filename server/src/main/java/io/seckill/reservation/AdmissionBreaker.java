package io.seckill.reservation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.SaleRegistry;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.anomaly.StalledWork;
import io.seckill.config.SeckillProperties;
import io.seckill.mq.BacklogLimit;
import io.seckill.mq.OrderBacklog;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.ScriptReply;
import io.seckill.worker.SlotPass;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The entry breaker (DESIGN.md §11.1 row 2, §11.3 point 1): admission answers 503 ADMISSION_PAUSED
 * instead of taking more units while
 * <ul>
 * <li>reservations stop reaching the broker - the oldest unsent reservation is older than
 * {@code seckill.admission.max-unsent-age}, or most recent sends fail ({@link Cause#SEND}); or
 * <li>the order consumers are far behind - the oldest order message they have not consumed is older
 * than {@code seckill.admission.max-order-backlog-age} in two readings in a row ({@link Cause#ORDER_BACKLOG}):
 * the first step of §11.3 for a long backlog is to stop new reservations at the entry, not to let
 * buyers queue for orders minutes away.
 * </ul>
 * It re-checks every half second and closes by itself once sends flow again and the backlog is down
 * to half its limit. Short of a pause, each backlog reading (every {@link OrderBacklog#READ_EVERY_MS})
 * also sets the entry's {@link OrderPace} as it is taken.
 * It publishes {@code reservation_send_pending}, {@code reservation_send_oldest_age_seconds},
 * {@code admission_paused} and
 * {@code admission_trips_total} by cause.
 */
@Component
public class AdmissionBreaker implements DisposableBean {

    /** Why admission paused. */
    public enum Cause {
        SEND("admission is paused while orders cannot reach the queue; retry later"),
        ORDER_BACKLOG("admission is paused while the order consumers catch up with the queue; retry later");

        private final String detail;

        Cause(String detail) {
            this.detail = detail;
        }

        /** What a refused buyer is told. */
        public String detail() {
            return detail;
        }

        String tag() {
            return name().toLowerCase();
        }
    }

    private static final Logger log = LoggerFactory.getLogger(AdmissionBreaker.class);
    private static final int MIN_SAMPLES = 20;
    private static final int SAMPLE = 16;
    private static final LuaScript SEND_BACKLOG = LuaScript.load("send_backlog");

    private final SaleRegistry registry;
    private final Redis redis;
    private final SeckillProperties props;
    private final OrderBacklog backlog;
    private final OrderPace pace;
    /** Null when {@code seckill.admission.max-order-backlog-age} is 0: the backlog never pauses admission. */
    private final BacklogLimit backlogLimit;

    private final SlotPass backlogPass;

    private final Counter sendOk;
    private final Counter sendFailed;
    private final Map<Cause, Counter> trips = new EnumMap<>(Cause.class);
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong oldestAgeMs = new AtomicLong();
    /**
     * The broker's latest backlog reading, taken on a thread of its own (started by the first check of
     * an instance with the api role): a broker that answers slowly never holds up the send check.
     */
    private final AtomicReference<OrderBacklog.Reading> latest = new AtomicReference<>();

    private ScheduledExecutorService reader;
    private volatile Cause cause;
    private double lastOk;
    private double lastFailed;

    AdmissionBreaker(
            SaleRegistry registry,
            Redis redis,
            OrderBacklog backlog,
            OrderPace pace,
            SeckillProperties props,
            StalledWork stalled,
            Clock clock,
            MeterRegistry meters) {
        this.registry = registry;
        this.backlogPass = new SlotPass(
                "admission-breaker",
                redis::nodeOf,
                clock,
                meters,
                SlotPass.reportingTo(stalled, "admission-breaker", AnomalyKind.SEND_BACKLOG_SLOT_STALLED));
        this.redis = redis;
        this.backlog = backlog;
        this.pace = pace;
        this.props = props;
        Duration maxBacklog = props.admission().maxOrderBacklogAge();
        this.backlogLimit = maxBacklog.isZero() ? null : new BacklogLimit(maxBacklog, 0.5);
        this.sendOk = meters.counter("reservation.send", "result", "ok");
        this.sendFailed = meters.counter("reservation.send", "result", "failed");
        Gauge.builder("reservation.send.pending", pending, AtomicLong::get).register(meters);
        Gauge.builder("reservation.send.oldest.age.seconds", oldestAgeMs, v -> v.get() / 1000.0)
                .register(meters);
        Gauge.builder("admission.paused", this, b -> b.cause != null ? 1 : 0).register(meters);
        for (Cause c : Cause.values()) {
            trips.put(c, meters.counter("admission.trips", "cause", c.tag()));
        }
    }

    public boolean isOpen() {
        return cause != null;
    }

    /** Why admission is paused now; null when it is not. */
    public Cause cause() {
        return cause;
    }

    /** How many times admission has been paused since start, for any cause. */
    public long trips() {
        return trips.values().stream().mapToLong(c -> (long) c.count()).sum();
    }

    /** How many times admission has been paused for {@code c} since start. */
    public long trips(Cause c) {
        return (long) trips.get(c).count();
    }

    /** For tests: another backlog limit, from a fresh reading on (the configured one must be on). */
    void maxOrderBacklogAge(Duration limit) {
        backlogLimit.set(limit, 0.5);
        backlog.expire();
    }

    @Scheduled(fixedDelay = 500)
    void check() {
        if (!props.hasRole("api")) {
            return;
        }
        Cause was = cause;
        boolean sending = was == Cause.SEND;
        try {
            measureBacklog();
            double ok = sendOk.count();
            double failed = sendFailed.count();
            double okDelta = ok - lastOk;
            double failedDelta = failed - lastFailed;
            lastOk = ok;
            lastFailed = failed;
            boolean failing = okDelta + failedDelta >= MIN_SAMPLES && failedDelta > okDelta;
            long maxAge = props.admission().maxUnsentAge().toMillis();
            // hysteresis: pause above the limit, resume only well below it, so the breaker does not flap
            boolean stale = sending ? oldestAgeMs.get() > maxAge / 2 : oldestAgeMs.get() > maxAge;
            sending = failing || stale;
        } catch (RuntimeException e) {
            // the backlog cannot be measured (Redis down): admission fails closed on its own Redis call anyway
            log.warn(
                    "admission.breaker_check_failed error_class={}: {}",
                    e.getClass().getName(),
                    e.getMessage());
        }
        // the broker's reading is shared and taken on the reader's thread; an unknown one keeps the state
        startReader();
        OrderBacklog.Reading reading = latest.get();
        boolean behind = reading != null && backlogLimit != null && backlogLimit.update(reading);
        Cause now = sending ? Cause.SEND : behind ? Cause.ORDER_BACKLOG : null;
        cause = now;
        if (now != null && now != was) {
            trips.get(now).increment();
        }
        if (now != was) {
            log.warn(
                    "admission.{} cause={} oldest_unsent_age_ms={} send_pending={} order_backlog_age_ms={}",
                    now != null ? "paused" : "resumed",
                    now != null ? now.tag() : was.tag(),
                    oldestAgeMs.get(),
                    pending.get(),
                    reading == null ? -1 : reading.ageMs());
        }
    }

    private synchronized void startReader() {
        if (reader != null || backlogLimit == null && !pace.enabled()) {
            return;
        }
        reader = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "admission-backlog-reader");
            t.setDaemon(true);
            return t;
        });
        reader.scheduleWithFixedDelay(
                () -> {
                    try {
                        OrderBacklog.Reading r = backlog.read();
                        latest.set(r);
                        // the pace takes each reading as it comes, not at the next check half a second later
                        pace.update(r);
                    } catch (RuntimeException e) {
                        // an unknown reading keeps the breaker as it is; the task must live on for the next one
                        log.warn(
                                "admission.backlog_read_failed error_class={}: {}",
                                e.getClass().getName(),
                                e.getMessage());
                    }
                },
                0,
                OrderBacklog.READ_EVERY_MS,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void destroy() {
        if (reader != null) {
            reader.shutdownNow();
            reader = null;
        }
    }

    /**
     * Every live slot's send backlog, each slot read on its own master's clock ({@code send_backlog.lua}) and as
     * its own unit of failure: a master that does not answer leaves its slots out of the reading (counted and
     * backed off by the pass) and does not blind the breaker to the backlog of the others.
     */
    private void measureBacklog() {
        long[] total = {0};
        long[] oldest = {0};
        backlogPass.run(registry.liveSlots(), slot -> {
            List<Object> r = SEND_BACKLOG.run(redis, new String[] {slot.sendDue()}, Integer.toString(SAMPLE));
            // send_backlog.lua answers {entries in send_due, age in ms of the oldest on the master's clock}
            total[0] += ScriptReply.number(r, 0);
            oldest[0] = Math.max(oldest[0], ScriptReply.number(r, 1));
            return 1;
        });
        pending.set(total[0]);
        oldestAgeMs.set(oldest[0]);
    }
}
