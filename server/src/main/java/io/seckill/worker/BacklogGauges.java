package io.seckill.worker;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.db.Backlog;
import java.util.concurrent.atomic.AtomicLong;

/** The two gauges of a worker's queue - rows pending, age of the oldest - set from the last reading. */
final class BacklogGauges {

    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong oldestAgeMs = new AtomicLong();

    BacklogGauges(MeterRegistry meters, String pendingName, String oldestAgeName) {
        Gauge.builder(pendingName, pending, AtomicLong::get).register(meters);
        Gauge.builder(oldestAgeName, oldestAgeMs, v -> v.get() / 1000.0).register(meters);
    }

    void show(Backlog b) {
        pending.set(b.pending());
        oldestAgeMs.set((long) (b.oldestAgeSeconds() * 1000));
    }
}
