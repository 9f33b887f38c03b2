package io.seckill.bench;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.reservation.AdmissionBreaker;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.context.ApplicationContext;

/**
 * Watches the send path while the bench drives admission: the entry breaker's pauses, the oldest
 * reservation not yet on the broker (sampled every 250 ms), how many rode in one broker send - and
 * the other way onto the broker, the outbox relay's: the oldest order event not yet sent.
 */
final class SendPathWatch implements AutoCloseable {

    private final AdmissionBreaker breaker;
    private final MeterRegistry meters;
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    private final AtomicLong maxOldestMs = new AtomicLong();
    private final AtomicLong maxOutboxMs = new AtomicLong();
    private long trips;
    private double sent;
    private double batches;

    SendPathWatch(ApplicationContext app) {
        this.breaker = app.getBean(AdmissionBreaker.class);
        this.meters = app.getBean(MeterRegistry.class);
        this.trips = breaker.trips(AdmissionBreaker.Cause.SEND);
        this.sent = batchSum();
        this.batches = batchCount();
        sampler.scheduleAtFixedRate(
                () -> {
                    var g = meters.find("reservation.send.oldest.age.seconds").gauge();
                    if (g != null) {
                        maxOldestMs.accumulateAndGet((long) (g.value() * 1000), Math::max);
                    }
                    var outbox = meters.find("outbox.oldest.age.seconds").gauge();
                    if (outbox != null) {
                        maxOutboxMs.accumulateAndGet((long) (outbox.value() * 1000), Math::max);
                    }
                },
                0,
                250,
                TimeUnit.MILLISECONDS);
    }

    /** The oldest unsent reservation seen since the last {@link #sinceLast()}, in seconds. */
    double maxOldestSeconds() {
        return maxOldestMs.get() / 1000.0;
    }

    /** What happened since the last call. */
    String sinceLast() {
        long t = breaker.trips(AdmissionBreaker.Cause.SEND);
        double s = batchSum();
        double b = batchCount();
        String out = String.format(
                "send path: breaker paused %d times, oldest unsent max %.1f s, %.1f messages per broker send; "
                        + "outbox: oldest unsent event max %.1f s",
                t - trips,
                maxOldestMs.getAndSet(0) / 1000.0,
                b == batches ? 0 : (s - sent) / (b - batches),
                maxOutboxMs.getAndSet(0) / 1000.0);
        trips = t;
        sent = s;
        batches = b;
        return out;
    }

    private double batchSum() {
        var d = meters.find("reservation.send.batch.size").summary();
        return d == null ? 0 : d.totalAmount();
    }

    private double batchCount() {
        var d = meters.find("reservation.send.batch.size").summary();
        return d == null ? 0 : d.count();
    }

    @Override
    public void close() {
        sampler.shutdownNow();
    }
}
