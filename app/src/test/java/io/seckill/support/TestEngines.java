package io.seckill.support;

import io.seckill.engines.EmbeddedEngines;

/** The real engines, started once per test JVM and stopped when it exits. */
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
            EmbeddedEngines started = engines;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (Exception e) {
                    System.err.println("stopping engines: " + e);
                }
            }));
        }
        return engines;
    }
}
