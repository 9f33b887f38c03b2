package io.seckill.invariants;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /api/v1/admin/activities/{id}/invariants}: every guarantee check (DESIGN.md) of a sale, each PASS or FAIL. */
@RestController
class InvariantsController {

    private final InvariantChecker checker;

    InvariantsController(InvariantChecker checker) {
        this.checker = checker;
    }

    @GetMapping("/api/v1/admin/activities/{activityId}/invariants")
    Map<String, Object> check(@PathVariable long activityId, @RequestParam(defaultValue = "true") boolean quiet) {
        List<InvariantChecker.Check> checks = checker.check(activityId, quiet);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("activity_id", activityId);
        out.put("pass", checks.stream().allMatch(InvariantChecker.Check::pass));
        out.put(
                "checks",
                checks.stream()
                        .map(c -> Map.of("name", c.name(), "pass", c.pass(), "detail", c.detail()))
                        .toList());
        return out;
    }
}
