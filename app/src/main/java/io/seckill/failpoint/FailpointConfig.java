package io.seckill.failpoint;

import java.util.Map;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import io.seckill.api.ApiException;
import io.seckill.api.TokenVerifier;

/**
 * Arms failpoints from {@code seckill.failpoints.<name>=<action>} at start-up, and - only when
 * {@code seckill.failpoints-admin=true} (test and chaos runs) - from the admin API.
 */
@Configuration(proxyBeanMethods = false)
@RestController
class FailpointConfig {

    private final TokenVerifier tokens;
    private final boolean adminEnabled;

    FailpointConfig(Environment env, TokenVerifier tokens, @Value("${seckill.failpoints-admin:false}") boolean adminEnabled) {
        this.tokens = tokens;
        this.adminEnabled = adminEnabled;
        Map<String, String> configured = Binder.get(env).bind("seckill.failpoints", Bindable.mapOf(String.class, String.class))
                .orElse(Map.of());
        configured.forEach(Failpoints::arm);
    }

    record ArmRequest(String action) {
    }

    @GetMapping("/api/v1/admin/failpoints")
    Map<String, String> list(@RequestHeader(value = "Authorization", required = false) String auth) {
        tokens.admin(auth);
        return Failpoints.armed();
    }

    @PostMapping("/api/v1/admin/failpoints/{name}")
    Map<String, String> arm(@RequestHeader(value = "Authorization", required = false) String auth, @PathVariable String name,
            @RequestBody(required = false) ArmRequest body) {
        tokens.admin(auth);
        if (!adminEnabled) {
            throw new ApiException(HttpStatus.FORBIDDEN, "FAILPOINTS_DISABLED", "failpoints cannot be armed on this instance");
        }
        if (body == null || body.action() == null) {
            throw ApiException.invalid("action", "is required");
        }
        try {
            Failpoints.arm(name, body.action());
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid(Failpoints.NAMES.contains(name) ? "action" : "name", e.getMessage());
        }
        return Failpoints.armed();
    }

    @DeleteMapping("/api/v1/admin/failpoints/{name}")
    Map<String, String> disarm(@RequestHeader(value = "Authorization", required = false) String auth,
            @PathVariable String name) {
        tokens.admin(auth);
        Failpoints.disarm(name);
        return Failpoints.armed();
    }
}
