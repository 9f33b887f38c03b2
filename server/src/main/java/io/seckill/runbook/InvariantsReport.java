package io.seckill.runbook;

import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.invariants.InvariantChecker;
import io.seckill.refusal.Refusal;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

    public Map<String, Object> check(Long activityId) {
        List<Activity> sales = activityId == null
                ? registry.live()
                : registry.load(activityId)
                        .map(List::of)
                        .orElseThrow(() -> Refusal.notFound("ACTIVITY_NOT_FOUND", "no activity " + activityId));
        List<Map<String, Object>> out = new ArrayList<>();
        boolean pass = true;
        for (Activity a : sales) {
            List<InvariantChecker.Check> checks = invariants.check(a.activityId(), true);
            boolean ok = checks.stream().allMatch(InvariantChecker.Check::pass);
            pass &= ok;
            out.add(Map.of("activity_id", a.activityId(), "pass", ok, "checks", checks));
        }
        return Map.of(
                "pass", pass, "activities", out, "checked_at", clock.instant().toString());
    }
}
