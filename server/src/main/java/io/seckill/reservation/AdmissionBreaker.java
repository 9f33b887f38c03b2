package io.seckill.reservation;

import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import io.seckill.activity.SaleRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;

/**
 * The entry breaker (DESIGN.md §11.1 row 2, 11.3 point 1): when reservations stop reaching the broker -
 * the oldest unsent reservation is older than {@code seckill.admission.max-unsent-age}, or most
 * recent sends fail - admission answers 503 ADMISSION_PAUSED instead of taking more units it cannot
 * pass on. It re-checks every half second and closes by itself once sends flow again. It also
 * publishes {@code reservation_send_pending} and {@code reservation_send_oldest_age_seconds}.
 */
@Component
public class AdmissionBreaker {

    private static final Logger log = LoggerFactory.getLogger(AdmissionBreaker.class);
    private static final int MIN_SAMPLES = 20;
    private static final int SAMPLE = 16;

    private final SaleRegistry registry;
    private final Redis redis;
    private final SeckillProperties props;
    private final Counter sendOk;
    private final Counter sendFailed;
    private final Counter trips;
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong oldestAgeMs = new AtomicLong();
    private volatile boolean open;
    private double lastOk;
    private double lastFailed;

    AdmissionBreaker(SaleRegistry registry, Redis redis, SeckillProperties props,
            MeterRegistry meters) {
        this.registry = registry;
        this.redis = redis;
        this.props = props;
        this.sendOk = meters.counter("reservation.send", "result", "ok");
        this.sendFailed = meters.counter("reservation.send", "result", "failed");
        Gauge.builder("reservation.send.pending", pending, AtomicLong::get).register(meters);
        Gauge.builder("reservation.send.oldest.age.seconds", oldestAgeMs, v -> v.get() / 1000.0).register(meters);
        Gauge.builder("admission.paused", this, b -> b.open ? 1 : 0).register(meters);
        this.trips = meters.counter("admission.trips");
    }

    public boolean isOpen() {
        return open;
    }

    /** How many times admission has been paused since start. */
    public long trips() {
        return (long) trips.count();
    }

    @Scheduled(fixedDelay = 500)
    void check() {
        if (!props.hasRole("api")) {
            return;
        }
        boolean wasOpen = open;
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
            boolean stale = open ? oldestAgeMs.get() > maxAge / 2 : oldestAgeMs.get() > maxAge;
            open = failing || stale;
        } catch (RuntimeException e) {
            // the backlog cannot be measured (Redis down): admission fails closed on its own Redis call anyway
            log.warn("admission.breaker_check_failed error_class={}: {}", e.getClass().getName(), e.getMessage());
        }
        if (open && !wasOpen) {
            trips.increment();
        }
        if (open != wasOpen) {
            log.warn("admission.{} oldest_unsent_age_ms={} send_pending={}", open ? "paused" : "resumed", oldestAgeMs.get(),
                    pending.get());
        }
    }

    private void measureBacklog() {
        long total = 0;
        long oldestReservedAt = Long.MAX_VALUE;
        for (SkuSlot slot : registry.liveSlots()) {
            total += redis.sync().zcard(slot.sendDue());
            // the lowest scores are the entries due soonest; their reservation times bound the oldest
            for (String rid : redis.sync().zrange(slot.sendDue(), 0, SAMPLE - 1)) {
                String at = redis.sync().hget(slot.reservation(rid), "reserved_at_ms");
                if (at != null) {
                    oldestReservedAt = Math.min(oldestReservedAt, Long.parseLong(at));
                }
            }
        }
        pending.set(total);
        oldestAgeMs.set(oldestReservedAt == Long.MAX_VALUE ? 0 : Math.max(0, System.currentTimeMillis() - oldestReservedAt));
    }
}
