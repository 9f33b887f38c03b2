package io.seckill.failpoint;

import java.util.Map;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** Arms failpoints from {@code seckill.failpoints.<name>=<action>} at start-up. */
@Configuration(proxyBeanMethods = false)
class FailpointConfig {

    FailpointConfig(Environment env) {
        Map<String, String> configured = Binder.get(env)
                .bind("seckill.failpoints", Bindable.mapOf(String.class, String.class))
                .orElse(Map.of());
        configured.forEach(Failpoints::arm);
    }
}
