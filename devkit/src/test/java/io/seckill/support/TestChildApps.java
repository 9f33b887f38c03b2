package io.seckill.support;

import java.util.LinkedHashMap;
import java.util.Map;

/** Configuration of the application run as a child process ({@link io.seckill.engines.AppProcess}) beside the tests. */
public final class TestChildApps {

    private TestChildApps() {}

    /**
     * What a child instance needs to run beside the tests: the test engines, the tests' token secrets
     * (so {@link IntegrationTest}'s tokens are accepted), its own id key and the payment simulator.
     */
    public static Map<String, String> properties(String name) {
        Map<String, String> p = new LinkedHashMap<>(TestEngines.get().springProperties());
        p.put("seckill.jwt.user-secret", IntegrationTest.USER_SECRET);
        p.put("seckill.jwt.admin-secret", IntegrationTest.ADMIN_SECRET);
        p.put("seckill.ids.keys.1", name + "-id-key-v1-0123456789abcdef0123456789");
        p.put("seckill.payment.channel-url", TestPaySim.get().url());
        p.put("seckill.payment.callback-secret", TestPaySim.SECRET);
        return p;
    }
}
