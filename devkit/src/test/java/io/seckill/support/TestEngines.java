package io.seckill.support;

import io.seckill.engines.EmbeddedEngines;
import java.util.UUID;

/**
 * The real engines, started once per test JVM. They stop themselves when it exits, after the
 * application contexts of the tests have closed.
 *
 * <p>The broker has access control on, as a broker reachable from anything but the engine should: it accepts one
 * user, whose secret is made for this JVM, and every test application signs with it ({@link
 * EmbeddedEngines#springProperties()}). A client that does not sign is refused (BrokerAclIT).
 */
public final class TestEngines {

    /** The one user the tests' broker accepts. */
    private static final String BROKER_USER = "seckill-engine";

    private static final OncePerJvm<EmbeddedEngines> ONCE = new OncePerJvm<>(
            "embedded engines",
            () -> EmbeddedEngines.start(
                    false,
                    SpringContexts::closeAll,
                    new EmbeddedEngines.BrokerUser(
                            BROKER_USER, "tests-" + UUID.randomUUID().toString().replace("-", ""))));

    private TestEngines() {}

    public static EmbeddedEngines get() {
        return ONCE.get();
    }
}
