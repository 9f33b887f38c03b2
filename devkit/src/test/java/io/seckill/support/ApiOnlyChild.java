package io.seckill.support;

import io.seckill.engines.AppProcess;
import java.nio.file.Path;
import java.util.Map;

/**
 * One instance of the api role alone as a child process (as an API pod runs it), started once per test JVM by the
 * first test that needs it and stopped when the JVM exits: the tests of what such a pod exposes and of a fleet with
 * roles split over processes share it instead of each starting a JVM. It belongs to the tests' fleet (their id key),
 * so this JVM's order consumer takes what it admits.
 */
public final class ApiOnlyChild {

    private static final OncePerJvm<AppProcess> ONCE = new OncePerJvm<>("the api-only child process", () -> {
        Map<String, String> p = TestChildApps.properties("api-only");
        p.put("seckill.roles", "api");
        p.put("seckill.ids.keys.1", IntegrationTest.ID_KEY);
        AppProcess app = new AppProcess(p, Path.of("target", "child-logs"));
        app.start();
        return OncePerJvm.closedOnExit(app);
    });

    private ApiOnlyChild() {}

    public static AppProcess get() {
        return ONCE.get();
    }
}
