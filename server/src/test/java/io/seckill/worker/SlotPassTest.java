package io.seckill.worker;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.seckill.redis.SkuSlot;
import io.seckill.testing.SettableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class SlotPassTest {

    /** Three sales' slots: sale 1 on the server at :7001, sales 2 and 3 on :7002. */
    private static final SkuSlot A = SkuSlot.single(1, 1);

    private static final SkuSlot B = SkuSlot.single(2, 1);
    private static final SkuSlot C = SkuSlot.single(3, 1);
    private static final Map<String, String> SERVER =
            Map.of(A.stock(), ":7001", B.stock(), ":7002", C.stock(), ":7002");

    private final SettableClock clock = new SettableClock();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final List<String> stalls = new ArrayList<>();
    private final SlotPass pass = new SlotPass(
            "test-worker",
            SERVER::get,
            clock,
            meters,
            (type, id, slot, attempts, e) -> stalls.add(type + " " + id + " " + attempts));
    private final Set<SkuSlot> silent = ConcurrentHashMap.newKeySet();
    private final Set<SkuSlot> broken = ConcurrentHashMap.newKeySet();
    private final List<SkuSlot> ran = new ArrayList<>();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @BeforeEach
    void captureLogs() {
        logs.start();
        ((Logger) LoggerFactory.getLogger(SlotPass.class)).addAppender(logs);
    }

    @AfterEach
    void releaseLogs() {
        ((Logger) LoggerFactory.getLogger(SlotPass.class)).detachAppender(logs);
    }

    private int work(SkuSlot slot) {
        ran.add(slot);
        if (silent.contains(slot)) {
            throw new RedisCommandTimeoutException("Command timed out after 2 second(s)");
        }
        if (broken.contains(slot)) {
            throw new RedisCommandExecutionException(
                    "WRONGTYPE Operation against a key holding the wrong kind of value");
        }
        return 1;
    }

    private int pass() {
        ran.clear();
        return pass.run(List.of(A, B, C), this::work);
    }

    private double failed(String scope) {
        return meters.counter("work.slot.failed", "worker", "test-worker", "scope", scope)
                .count();
    }

    @Test
    @DisplayName(
            "a slot whose master does not answer, first in the pass, does not keep the pass from the slots after it")
    void aSilentSlotDoesNotStopThePass() {
        silent.add(A);
        assertThat(pass()).isEqualTo(2);
        assertThat(ran).containsExactly(A, B, C);
        assertThat(failed("node")).isEqualTo(1);
    }

    @Test
    @DisplayName(
            "a master that does not answer is retried with backoff (1 s doubling), not on every pass: its slots wait, "
                    + "the other master's slots run on every pass")
    void aSilentMasterBacksOff() {
        silent.add(B);
        pass();
        assertThat(ran).containsExactly(A, B);
        // C is on the same server as B: it is not asked while the server backs off
        clock.advance(Duration.ofMillis(500));
        pass();
        assertThat(ran).containsExactly(A);
        clock.advance(Duration.ofMillis(500));
        pass();
        assertThat(ran).as("after 1 s the server is tried again").containsExactly(A, B);
        clock.advance(Duration.ofMillis(1_500));
        pass();
        assertThat(ran).as("the second failure backs off for 2 s").containsExactly(A);
        clock.advance(Duration.ofMillis(500));
        silent.clear();
        assertThat(pass()).isEqualTo(3);
        assertThat(ran).as("the server answers again: every slot runs").containsExactly(A, B, C);
        assertThat(meters.counter("work.slot.skipped", "worker", "test-worker").count())
                .isEqualTo(6);
    }

    @Test
    @DisplayName(
            "units that span servers (a SKU over its buckets) back off each on its own: a unit that times out waits, "
                    + "a unit that the same first server names runs on every pass")
    void unitsBackOffAlone() {
        SlotPass units = SlotPass.perUnit("test-units", clock, meters, (type, id, slot, attempts, e) -> {});
        silent.add(B);
        ran.clear();
        units.run(List.of(A, B, C), this::work);
        clock.advance(Duration.ofMillis(500));
        ran.clear();
        assertThat(units.run(List.of(A, B, C), this::work)).isEqualTo(2);
        assertThat(ran).as("C is served by B's first server and still runs").containsExactly(A, C);
        clock.advance(Duration.ofMillis(500));
        ran.clear();
        units.run(List.of(A, B, C), this::work);
        assertThat(ran).as("B is tried again after 1 s").containsExactly(A, B, C);
    }

    @Test
    @DisplayName(
            "an error the server answered (a script's error reply) is charged to its slot alone: the server's other "
                    + "slots still run")
    void anAnsweredErrorIsTheSlotsAlone() {
        broken.add(B);
        pass();
        clock.advance(Duration.ofMillis(10));
        pass();
        assertThat(ran).containsExactly(A, C);
        assertThat(failed("slot")).isEqualTo(1);
        assertThat(failed("node")).isZero();
    }

    @Test
    @DisplayName("every failure is reported with its run of attempts (the stalled-work alert decides from them); a "
            + "report that fails (PostgreSQL away too) does not end the pass")
    void failuresAreReported() {
        silent.add(A);
        for (int i = 0; i < 3; i++) {
            pass();
            clock.advance(Duration.ofSeconds(30));
        }
        assertThat(stalls).containsExactly("REDIS_NODE :7001 1", "REDIS_NODE :7001 2", "REDIS_NODE :7001 3");

        SlotPass failingReport =
                new SlotPass("test-worker", SERVER::get, clock, meters, (type, id, slot, attempts, e) -> {
                    throw new IllegalStateException("PostgreSQL is away");
                });
        ran.clear();
        assertThat(failingReport.run(List.of(A, B, C), this::work)).isEqualTo(2);
        assertThat(ran).containsExactly(A, B, C);
    }

    @Test
    @DisplayName("a unit that keeps failing is logged once per 30 s, not on every pass")
    void loggedOncePerInterval() {
        broken.add(A);
        for (int second = 0; second < 65; second++) {
            pass();
            clock.advance(Duration.ofSeconds(1));
        }
        long failureLines = logs.list.stream()
                .filter(e -> e.getFormattedMessage().startsWith("work.slot_failed"))
                .count();
        // failures at 0, 1, 3, 7, 15, 31, 61 s (backoff 1 s doubling): logged at 0, 31 and 61 s
        assertThat(failureLines).isEqualTo(3);
        assertThat(failed("slot")).isEqualTo(7);
        broken.clear();
        clock.advance(Duration.ofSeconds(30));
        pass();
        assertThat(logs.list.getLast().getFormattedMessage()).startsWith("work.slot_recovered");
    }

    @Test
    @DisplayName(
            "a timeout wrapped by an async call (CompletionException) is still the server's, an error reply is not")
    void whatCountsAsNotAnswered() {
        assertThat(SlotPass.notAnswered(
                        new java.util.concurrent.CompletionException(new RedisCommandTimeoutException("timed out"))))
                .isTrue();
        assertThat(SlotPass.notAnswered(new RedisCommandExecutionException("ERR")))
                .isFalse();
        assertThat(SlotPass.notAnswered(new IllegalArgumentException("bad uuid")))
                .isFalse();
    }
}
