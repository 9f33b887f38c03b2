package io.seckill.invariants;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.seckill.api.TokenVerifier;

/** {@code GET /api/v1/admin/activities/{id}/invariants}: every SPEC 1 check of a sale, each PASS or FAIL. */
@RestController
class InvariantsController {

    private final InvariantChecker checker;
    private final TokenVerifier tokens;

    InvariantsController(InvariantChecker checker, TokenVerifier tokens) {
        this.checker = checker;
        this.tokens = tokens;
    }

    @GetMapping("/api/v1/admin/activities/{activityId}/invariants")
    Map<String, Object> check(@RequestHeader(value = "Authorization", required = false) String auth,
            @PathVariable long activityId, @RequestParam(defaultValue = "true") boolean quiet) {
        tokens.admin(auth);
        List<InvariantChecker.Check> checks = checker.check(activityId, quiet);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("activity_id", activityId);
        out.put("pass", checks.stream().allMatch(InvariantChecker.Check::pass));
        out.put("checks", checks.stream().map(c -> Map.of("name", c.name(), "pass", c.pass(), "detail", c.detail())).toList());
        return out;
    }
}
