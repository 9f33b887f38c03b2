package io.seckill.reconcile;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.outbox.Outbox;
import java.time.Duration;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * The outbox relay's leases (DESIGN.md §9.3): an event left SENDING under a lease that expired before the
 * watermark (its relay died between claim and send) goes back to RETRY, once per attempt, so another relay sends it.
 */
@Component
class OutboxLeaseRule {

    private final Outbox outbox;
    private final Repairs repairs;
    private final MeterRegistry meters;

    OutboxLeaseRule(Outbox outbox, Repairs repairs, MeterRegistry meters) {
        this.outbox = outbox;
        this.repairs = repairs;
        this.meters = meters;
        meters.counter("outbox.lease.expired");
    }

    /** Returns how many events this run put back. */
    int apply(Duration watermark, Tally tally) {
        int n = 0;
        for (Outbox.Stale e : outbox.stale(watermark)) {
            Repairs.Run run = repairs.run(
                    RepairKind.OUTBOX_LEASE_RECLAIM.name(),
                    "OUTBOX_EVENT",
                    e.eventId().toString(),
                    (long) e.attempts(),
                    "RETRY",
                    Reconciler.OPERATOR,
                    "SENDING with an expired lease",
                    Map.of("attempt_count", e.attempts()),
                    () -> outbox.reclaim(e.eventId()) ? "back to RETRY" : "already moved on");
            tally.repaired(run, RepairKind.OUTBOX_LEASE_RECLAIM.name());
            if (run == Repairs.Run.DONE) {
                meters.counter("outbox.lease.expired").increment();
                n++;
            }
        }
        return n;
    }
}
