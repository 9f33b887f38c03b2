package io.seckill.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.db.Backlog;
import io.seckill.support.BoundProperties;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class PollingWorkerTest {

    private static final SeckillProperties PROPS = BoundProperties.bind(Map.of("seckill.roles", "outbox-relay"));

    /** Three lanes; the gauges' reading fails twice, then shows a queue of 7 whose oldest waited 2.5 s. */
    static final class Worker extends PollingWorker {
        final Map<Integer, String> lanes = new ConcurrentHashMap<>();
        final AtomicInteger readings = new AtomicInteger();
        volatile String readBy;

        Worker(MeterRegistry meters) {
            super("outbox-relay", "test.worker", Duration.ofMillis(10), PROPS, meters);
            showBacklog("test.pending", "test.oldest.age.seconds", () -> {
                readBy = Thread.currentThread().getName();
                if (readings.incrementAndGet() <= 2) {
                    throw new IllegalStateException("database unavailable");
                }
                return new Backlog(7, 2.5);
            });
        }

        @Override
        protected String threadName() {
            return "polling-worker-test";
        }

        @Override
        protected int threads() {
            return 3;
        }

        @Override
        protected int runPass() {
            lanes.putIfAbsent(lane(), Thread.currentThread().getName());
            return 0;
        }
    }

    @Test
    void lanesRunSideBySideAndHousekeepingOutlivesItsFailures() {
        MeterRegistry meters = new SimpleMeterRegistry();
        Worker w = new Worker(meters);
        w.start();
        try {
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> w.lanes.size() == 3);
            assertThat(w.lanes)
                    .containsOnly(
                            Map.entry(0, "polling-worker-test-0"),
                            Map.entry(1, "polling-worker-test-1"),
                            Map.entry(2, "polling-worker-test-2"));

            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> meters.get("test.pending").gauge().value() == 7);
            assertThat(meters.get("test.oldest.age.seconds").gauge().value()).isEqualTo(2.5);
            assertThat(meters.get("test.worker.errors").counter().count())
                    .as("each failed reading counted")
                    .isEqualTo(2);
            assertThat(w.readBy)
                    .as("the gauges are read off the pass threads")
                    .isEqualTo("polling-worker-test-housekeeping");
        } finally {
            w.stop();
        }
        assertThat(Thread.getAllStackTraces().keySet())
                .as("every thread of the role ends with it")
                .noneMatch(t -> t.getName().startsWith("polling-worker-test") && t.isAlive());
    }
}
