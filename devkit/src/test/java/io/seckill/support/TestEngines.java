package io.seckill.support;

import io.seckill.engines.EmbeddedEngines;

/**
 * The real engines, started once per test JVM. They stop themselves when it exits, after the
 * application contexts of the tests have closed.
 */
public final class TestEngines {

    private static final OncePerJvm<EmbeddedEngines> ONCE =
            new OncePerJvm<>("embedded engines", () -> EmbeddedEngines.start(false, SpringContexts::closeAll));

    private TestEngines() {}

    public static EmbeddedEngines get() {
        return ONCE.get();
    }
}
