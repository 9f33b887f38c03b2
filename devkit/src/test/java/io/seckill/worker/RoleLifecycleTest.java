package io.seckill.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.entry.AdmissionEntry;
import io.seckill.support.BoundProperties;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.springframework.boot.web.server.GracefulShutdownCallback;
import org.springframework.boot.web.server.GracefulShutdownResult;
import org.springframework.boot.web.server.WebServer;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.support.GenericApplicationContext;

/** How the roles stop when the application closes: side by side, each on its own, and never holding the close. */
class RoleLifecycleTest {

    private static final SeckillProperties PROPS = BoundProperties.bind(Map.of("seckill.roles", "outbox-relay"));

    /** A role whose stop arrives at a meeting point and waits there for the others. */
    static final class Meeting extends RoleLifecycle {
        final CountDownLatch arrived;
        final boolean fails;
        volatile Boolean met;

        Meeting(CountDownLatch arrived, boolean fails) {
            super("outbox-relay", PROPS);
            this.arrived = arrived;
            this.fails = fails;
        }

        @Override
        protected void startRole() {}

        @Override
        protected void stopRole() {
            arrived.countDown();
            if (fails) {
                throw new IllegalStateException("the broker did not answer");
            }
            try {
                met = arrived.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                met = false;
            }
        }
    }

    @Test
    void theRolesOfOnePhaseStopSideBySide() {
        CountDownLatch arrived = new CountDownLatch(3);
        Meeting a = new Meeting(arrived, false);
        Meeting b = new Meeting(arrived, false);
        Meeting c = new Meeting(arrived, false);
        try (GenericApplicationContext ctx = context(a, b, c)) {
            assertThat(a.isRunning() && b.isRunning() && c.isRunning()).isTrue();
        }
        assertThat(new Boolean[] {a.met, b.met, c.met})
                .as("every stop found the other two stopping at the same time "
                        + "(one after the other, the first would have waited alone)")
                .containsOnly(true);
        assertThat(a.isRunning() || b.isRunning() || c.isRunning()).isFalse();
    }

    @Test
    void aStopThatFailsDoesNotHoldTheClose() {
        CountDownLatch arrived = new CountDownLatch(2);
        Meeting failing = new Meeting(arrived, true);
        Meeting other = new Meeting(arrived, false);
        long started = System.nanoTime();
        context(failing, other).close();
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertThat(other.met).isTrue();
        assertThat(tookMs)
                .as("the close went on once both had stopped, not after the phase's 10 s timeout")
                .isLessThan(5_000);
    }

    /** A role that says whether it was still running when the API port drained, and when it stopped. */
    static final class Recording extends RoleLifecycle {
        final List<String> events;

        Recording(List<String> events) {
            super("outbox-relay", PROPS);
            this.events = events;
        }

        @Override
        protected void startRole() {}

        @Override
        protected void stopRole() {
            events.add("role stopped");
        }
    }

    @Test
    void theApiPortFinishesItsCallsWhileTheRolesStillRun() {
        List<String> events = new CopyOnWriteArrayList<>();
        Recording role = new Recording(events);
        WebServer apiPort = new WebServer() {
            @Override
            public void start() {}

            @Override
            public void stop() {}

            @Override
            public int getPort() {
                return 0;
            }

            @Override
            public void shutDownGracefully(GracefulShutdownCallback callback) {
                events.add("api port drained, role running: " + role.isRunning());
                callback.shutdownComplete(GracefulShutdownResult.IDLE);
            }
        };
        GenericApplicationContext ctx = new GenericApplicationContext();
        ctx.registerBean(
                WebServerGracefulShutdownLifecycle.class, () -> new WebServerGracefulShutdownLifecycle(apiPort));
        ctx.registerBean(RoleLifecycle.class, () -> role);
        ctx.refresh();
        assertThat(role.isRunning()).isTrue();
        ctx.close();
        assertThat(events)
                .as("Spring Boot's graceful shutdown of the web server comes first: a reservation taken "
                        + "on the API port during the stop reaches a running sender")
                .containsExactly("api port drained, role running: true", "role stopped");
        assertThat(AdmissionEntry.ENTRY_PHASE)
                .as("the admission entry drains beside the API port")
                .isEqualTo(new WebServerGracefulShutdownLifecycle(apiPort).getPhase());
    }

    /** A worker of three threads whose passes do not answer to interrupts until released. */
    static final class Deaf extends PollingWorker {
        final AtomicBoolean released = new AtomicBoolean();
        final CountDownLatch inPass = new CountDownLatch(3);

        Deaf() {
            super("outbox-relay", "test.deaf", Duration.ofMillis(10), PROPS, new SimpleMeterRegistry());
        }

        @Override
        protected String threadName() {
            return "deaf-worker-test";
        }

        @Override
        protected int threads() {
            return 3;
        }

        @Override
        protected int runPass() {
            inPass.countDown();
            while (!released.get()) {
                // a client call that waits out its own timeout whatever the interrupt says
                Thread.interrupted();
                LockSupport.parkNanos(5_000_000);
            }
            return 0;
        }
    }

    @Test
    void aWorkerWaitsForItsThreadsTogetherAndNoLonger() throws Exception {
        Deaf w = new Deaf();
        w.start();
        try {
            assertThat(w.inPass.await(5, TimeUnit.SECONDS)).isTrue();
            long started = System.nanoTime();
            w.stop();
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertThat(tookMs)
                    .as("one wait of %d ms for the three threads, not one each", PollingWorker.STOP_WAIT.toMillis())
                    .isBetween(PollingWorker.STOP_WAIT.toMillis() - 100, 2 * PollingWorker.STOP_WAIT.toMillis() - 100);
            assertThat(Thread.getAllStackTraces().keySet())
                    .as("the threads still in their call are left to end")
                    .anyMatch(t -> t.getName().startsWith("deaf-worker-test") && t.isAlive());
        } finally {
            w.released.set(true);
        }
    }

    private static GenericApplicationContext context(RoleLifecycle... roles) {
        GenericApplicationContext ctx = new GenericApplicationContext();
        for (int i = 0; i < roles.length; i++) {
            RoleLifecycle role = roles[i];
            ctx.registerBean("role" + i, RoleLifecycle.class, () -> role);
        }
        ctx.refresh();
        return ctx;
    }
}
