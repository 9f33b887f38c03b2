package io.seckill.runbook;

import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.invariants.InvariantChecker;
import io.seckill.refusal.Refusal;
import java.time.Clock;
import java.util.List;
import org.springframework.stereotype.Service;

/** The invariants of one sale, or of every live sale, as the operator's check reports them. */
@Service
public class InvariantsReport {

    private final SaleRegistry registry;
    private final InvariantChecker invariants;
    private final Clock clock;

    InvariantsReport(SaleRegistry registry, InvariantChecker invariants, Clock clock) {
        this.clock = clock;
        this.registry = registry;
        this.invariants = invariants;
    }

    /** Every sale's checks, whether all passed, and when they were taken. */
    public record Verdict(boolean pass, List<InvariantChecker.SaleChecks> activities, String checkedAt) {}

    public Verdict check(Long activityId) {
        List<Activity> sales = activityId == null
                ? registry.live()
                : registry.load(activityId)
                        .map(List::of)
                        .orElseThrow(() -> Refusal.notFound("ACTIVITY_NOT_FOUND", "no activity " + activityId));
        List<InvariantChecker.SaleChecks> out = sales.stream()
                .map(a -> InvariantChecker.SaleChecks.of(a.activityId(), invariants.check(a.activityId(), true)))
                .toList();
        return new Verdict(
                out.stream().allMatch(InvariantChecker.SaleChecks::pass),
                out,
                clock.instant().toString());
    }
}
