package io.seckill.invariants;

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
    InvariantChecker.SaleChecks check(
            @PathVariable long activityId, @RequestParam(defaultValue = "true") boolean quiet) {
        return InvariantChecker.SaleChecks.of(activityId, checker.check(activityId, quiet));
    }
}
