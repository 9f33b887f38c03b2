package io.seckill.support;

import io.seckill.paysim.PaySim;

/** The payment channel simulator, started once per test JVM on a free port. */
public final class TestPaySim {

    public static final String SECRET = "test-callback-secret-0123456789abcdef0123";

    private static final OncePerJvm<PaySim> ONCE =
            new OncePerJvm<>("the payment simulator", () -> OncePerJvm.closedOnExit(PaySim.start(0, SECRET)));

    private TestPaySim() {}

    public static PaySim get() {
        return ONCE.get();
    }
}
