package io.seckill.support;

import io.seckill.reconcile.Reconciler;
import java.time.Duration;
import java.util.function.Predicate;
import org.awaitility.Awaitility;

/** Reconciliation runs as a test waits for them: what is quiet enough to judge may take a moment to be. */
public final class Reconciling {

    private Reconciling() {}

    /**
     * Runs the reconciler over the sale every 500 ms (judging everything older than a millisecond) until a run's
     * report satisfies {@code done}, 30 s at most; that report. A finding waits for the pipeline to be quiet (the
     * projection's consumer acknowledging every event, say), which a test cannot wait for directly.
     */
    public static Reconciler.Report until(Reconciler reconciler, long activityId, Predicate<Reconciler.Report> done) {
        return Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> reconciler.run(activityId, Duration.ofMillis(1)), done::test);
    }
}
