package io.seckill.support;

/**
 * Something a test JVM starts once, on first use, and keeps until it exits: an engine or a
 * simulator that every test class shares.
 */
final class OncePerJvm<T> {

    /** How the thing starts; it may throw. */
    @FunctionalInterface
    interface Starter<T> {
        T start() throws Exception;
    }

    private final String what;
    private final Starter<T> starter;
    private T value;

    OncePerJvm(String what, Starter<T> starter) {
        this.what = what;
        this.starter = starter;
    }

    /** {@code value}, closed when the JVM exits, after the application contexts of the tests that use it. */
    static <C extends AutoCloseable> C closedOnExit(C value) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            SpringContexts.closeAll();
            try {
                value.close();
            } catch (Exception e) {
                System.err.println("closing " + value + " at exit: " + e);
            }
        }));
        return value;
    }

    /** The running thing, started by the first caller; a failed start is tried again by the next. */
    synchronized T get() {
        if (value == null) {
            try {
                value = starter.start();
            } catch (Exception e) {
                throw new IllegalStateException("cannot start " + what, e);
            }
        }
        return value;
    }
}
