package io.seckill.support;

import io.seckill.engines.EmbeddedEngines;

/** The real engines, started once per test JVM (they stop themselves when it exits). */
public final class TestEngines {

    private static EmbeddedEngines engines;

    private TestEngines() {
    }

    public static synchronized EmbeddedEngines get() {
        if (engines == null) {
            try {
                engines = EmbeddedEngines.start(false);
            } catch (Exception e) {
                throw new IllegalStateException("cannot start embedded engines", e);
            }
        }
        return engines;
    }
}
