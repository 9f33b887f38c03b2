package io.seckill.support;

import io.seckill.config.SeckillProperties;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The engine's settings bound as Spring Boot binds them (validation included), for parts a test builds by hand. */
public final class BoundProperties {

    private BoundProperties() {}

    /**
     * What an instance cannot start without - an id key and, unless {@code seckill.jwt.jwks-uri} is given,
     * the two token secrets - with {@code given} over them.
     */
    public static SeckillProperties bind(Map<String, String> given) {
        Map<String, String> p = new HashMap<>();
        p.put("seckill.ids.keys.1", "k".repeat(32));
        if (!given.containsKey("seckill.jwt.jwks-uri")) {
            p.put("seckill.jwt.user-secret", "u".repeat(32));
            p.put("seckill.jwt.admin-secret", "a".repeat(32));
        }
        p.putAll(given);
        return new Binder(new MapConfigurationPropertySource(p))
                .bind("seckill", SeckillProperties.class)
                .get();
    }
}
