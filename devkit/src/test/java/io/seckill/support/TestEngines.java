package io.seckill.support;

import io.seckill.engines.EmbeddedEngines;

/** The real engines, started once per test JVM (they stop themselves when it exits). */
public final class TestEngines {

    private static final OncePerJvm<EmbeddedEngines> ONCE = new OncePerJvm<>("embedded engines", () -> EmbeddedEngines.start(false));

    private TestEngines() {
    }

    public static EmbeddedEngines get() {
        return ONCE.get();
    }
}
