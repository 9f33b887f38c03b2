package io.seckill.support;

import io.seckill.paysim.PaySim;

/** The payment channel simulator, started once per test JVM on a free port. */
public final class TestPaySim {

    public static final String SECRET = "test-callback-secret-0123456789abcdef0123";

    private static PaySim sim;

    private TestPaySim() {
    }

    public static synchronized PaySim get() {
        if (sim == null) {
            try {
                sim = PaySim.start(0, SECRET);
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the payment simulator", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(sim::close));
        }
        return sim;
    }
}
