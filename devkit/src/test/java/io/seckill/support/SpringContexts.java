package io.seckill.support;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The application contexts the tests of this JVM started (Spring keeps them cached until it exits).
 * When the JVM exits they close before the engines and simulators they use stop: closed against a
 * stopped broker, every RocketMQ client waits out its calls' timeouts, and the contexts of a whole
 * suite took longer than the test runner grants an exiting JVM.
 */
final class SpringContexts {

    private static final Set<ConfigurableApplicationContext> CONTEXTS = ConcurrentHashMap.newKeySet();

    private SpringContexts() {}

    /** Remembers {@code context}, and forgets those closed since (Spring closes the ones its cache evicts). */
    static void track(ConfigurableApplicationContext context) {
        CONTEXTS.removeIf(c -> !c.isActive());
        CONTEXTS.add(context);
    }

    /**
     * Closes every context, side by side (each closes its clients in turn), and returns when all are
     * closed: a context that Spring's own exit hook or another engine's is closing already is waited for.
     */
    static void closeAll() {
        List<Thread> closing = List.copyOf(CONTEXTS).stream()
                .map(c -> Thread.ofPlatform().name("close-" + c.getId()).start(c::close))
                .toList();
        for (Thread t : closing) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
