package io.seckill.failpoint;

import io.seckill.refusal.Refusal;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** Failpoints over the admin API - armed only when {@code seckill.failpoints-admin=true} (test and chaos runs). */
@RestController
class FailpointController {
    private final boolean adminEnabled;

    FailpointController(@Value("${seckill.failpoints-admin:false}") boolean adminEnabled) {
        this.adminEnabled = adminEnabled;
    }

    record ArmRequest(String action) {}

    @GetMapping("/api/v1/admin/failpoints")
    Map<String, String> list() {
        return Failpoints.armed();
    }

    @PostMapping("/api/v1/admin/failpoints/{name}")
    Map<String, String> arm(@PathVariable String name, @RequestBody(required = false) ArmRequest body) {
        if (!adminEnabled) {
            throw new Refusal(
                    Refusal.Kind.FORBIDDEN, "FAILPOINTS_DISABLED", "failpoints cannot be armed on this instance");
        }
        if (body == null || body.action() == null) {
            throw Refusal.invalid("action", "is required");
        }
        try {
            Failpoints.arm(name, body.action());
        } catch (IllegalArgumentException e) {
            throw Refusal.invalid(Failpoint.ids().contains(name) ? "action" : "name", e.getMessage());
        }
        return Failpoints.armed();
    }

    @DeleteMapping("/api/v1/admin/failpoints/{name}")
    Map<String, String> disarm(@PathVariable String name) {
        Failpoints.disarm(name);
        return Failpoints.armed();
    }
}
