package io.seckill.reservation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.mq.OrderBacklog;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * New reservations paced to what the order consumers settle ({@code seckill.admission.order-wait-target},
 * 0 = off): when the oldest order message waits longer than the target, or the backlog grows past
 * it, a buyer past this instance's pace ({@link OrderPaceRule}) is answered {@code 429 RATE_LIMITED}
 * before Redis is asked, so the ones admitted have their order about the target after their answer
 * instead of at the end of a growing queue. Only reservations taken count against the pace; a refusal
 * (sold out, already reserved) costs none. A pace of 0 (consumers that settle nothing while the
 * backlog is over the target) admits nobody. Publishes {@code admission_order_pace_per_second} (-1
 * while not pacing) and {@code reservation_rate_limited_total{scope="order_pace"}}.
 */
@Component
public class OrderPace {

    private static final Logger log = LoggerFactory.getLogger(OrderPace.class);
    /** The bucket holds this much of a second's pace, so admission flows evenly through the second. */
    private static final double BURST_SECONDS = 0.1;

    /** Null when off. */
    private volatile OrderPaceRule rule;

    private final LongAdder admitted = new LongAdder();
    private final Counter turnedAway;
    private volatile double perSecond = Double.POSITIVE_INFINITY;
    private double tokens;
    private long filledAt;

    OrderPace(SeckillProperties props, MeterRegistry meters) {
        Duration target = props.admission().orderWaitTarget();
        this.rule = target.isZero() ? null : new OrderPaceRule(target);
        this.turnedAway = meters.counter("reservation.rate_limited", "scope", "order_pace");
        Gauge.builder("admission.order.pace.per.second", this, p -> Double.isInfinite(p.perSecond) ? -1 : p.perSecond)
                .description("new reservations a second this instance admits while the order consumers set the pace; "
                        + "-1 while they keep up")
                .register(meters);
    }

    /**
     * Changes the wait target at run time (0: off): no pace until the readings from now on call for one.
     * The same bounds as the property's.
     */
    public synchronized void setTarget(Duration target) {
        SeckillProperties.Admission.requireOrderWaitTarget(target);
        rule = target.isZero() ? null : new OrderPaceRule(target);
        perSecond = Double.POSITIVE_INFINITY;
    }

    /** Whether a wait target is configured. */
    public boolean enabled() {
        return rule != null;
    }

    /** The pace now, reservations a second on this instance ({@link Double#POSITIVE_INFINITY} while not pacing). */
    public double perSecond() {
        return perSecond;
    }

    /** Takes a backlog reading into account (the entry breaker hands each one over as it comes). */
    void update(OrderBacklog.Reading reading) {
        OrderPaceRule r = rule;
        if (r == null) {
            return;
        }
        double was = perSecond;
        double now = r.update(reading, admitted.sum(), (long) turnedAway.count());
        if (log.isDebugEnabled()) {
            log.debug(
                    "admission.pace_reading pace_per_second={} order_backlog_age_ms={} produced={} consumed={} "
                            + "admitted={}",
                    Double.isInfinite(now) ? -1 : Math.round(now),
                    reading.ageMs(),
                    reading.produced(),
                    reading.consumed(),
                    admitted.sum());
        }
        if (now == was) {
            return;
        }
        synchronized (this) {
            if (Double.isInfinite(was)) {
                // pacing starts with a full bucket: the buyers already on their way are not all turned away
                tokens = now * BURST_SECONDS;
                filledAt = System.nanoTime();
            }
            perSecond = now;
        }
        if (Double.isInfinite(was) || Double.isInfinite(now)) {
            log.warn(
                    "admission.{} pace_per_second={} order_backlog_age_ms={} order_backlog_messages={}",
                    Double.isInfinite(now) ? "unpaced" : "paced",
                    Double.isInfinite(now) ? -1 : Math.round(now),
                    reading.ageMs(),
                    Math.max(0, reading.produced() - reading.consumed()));
        }
    }

    /**
     * Whether a buyer may try for a unit now, taking one of the pace's places; false (counted) when this
     * instance is at its pace. Each place taken is given back by {@link #settle(boolean)}.
     */
    boolean tryTake() {
        if (Double.isInfinite(perSecond)) {
            return true;
        }
        boolean room;
        synchronized (this) {
            long now = System.nanoTime();
            tokens = Math.min(Math.max(1, perSecond * BURST_SECONDS), tokens + (now - filledAt) / 1e9 * perSecond);
            filledAt = now;
            room = tokens >= 1;
            if (room) {
                tokens -= 1;
            }
        }
        if (!room) {
            turnedAway.increment();
        }
        return room;
    }

    /**
     * The end of a try that {@link #tryTake()} let through: a reservation {@code taken} keeps its place,
     * any other outcome (sold out, already reserved, an error) gives it back.
     */
    void settle(boolean taken) {
        if (taken) {
            admitted.increment();
        } else if (!Double.isInfinite(perSecond)) {
            synchronized (this) {
                tokens += 1;
            }
        }
    }
}
