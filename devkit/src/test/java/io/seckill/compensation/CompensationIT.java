package io.seckill.compensation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.redis.LuaScript;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.retry.Backoff;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** DESIGN.md §7.5, 9.6, 9.7, 13.1, 13.2: a rejected reservation's unit returns to Redis exactly once. */
class CompensationIT extends IntegrationTest {

    private static final LuaScript COMPENSATE = LuaScript.load("compensate");

    @Autowired
    CompensationWorker worker;

    @Autowired
    CompensationTaskRepository tasks;

    record Rejected(long activityId, UUID reservationId, UUID taskId, SkuSlot slot) {}

    /**
     * Stock 2: buyer 1 is admitted, loses their one-attempt mark (as a failover loses it) and is admitted again;
     * PostgreSQL's one-order-per-user key rejects one of the two.
     */
    private Rejected rejectedReservation() throws Exception {
        long activityId = openSale(2);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        assertThat(reserve(1, activityId, 1).status()).isEqualTo(202);
        redis.sync().del(slot.user(1));
        assertThat(reserve(1, activityId, 1).status()).isEqualTo(202);
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> count(
                                "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status <> 'RESERVED'",
                                activityId)
                        == 2);
        UUID rid = jdbc.queryForObject(
                "SELECT reservation_id FROM inventory_reservation WHERE activity_id = ? "
                        + "AND status = 'ORDER_REJECTED'",
                UUID.class,
                activityId);
        UUID task =
                jdbc.queryForObject("SELECT task_id FROM compensation_task WHERE reservation_id = ?", UUID.class, rid);
        assertThat(redis.sync().get(slot.stock())).isEqualTo("0");
        return new Rejected(activityId, rid, task, slot);
    }

    @Test
    @DisplayName(
            "fault #11: the same compensation run 10,000 times concurrently: Redis stock +1 exactly once, one marker, task APPLIED")
    void tenThousandConcurrentRuns() throws Exception {
        Rejected r = rejectedReservation();
        CompensationTasks.Claimed claimed =
                tasks.claim(r.taskId(), "owner-x", Duration.ofMinutes(5)).orElseThrow();
        try (ExecutorService pool = Executors.newFixedThreadPool(32)) {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                fs.add(pool.submit(() -> worker.apply(claimed, "owner-x")));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
        assertCompensatedOnce(r);
    }

    @Test
    @DisplayName("fault #12: a stale lease holder that wakes after the new owner finished has its writes refused")
    void staleHolderAfterTakeover() throws Exception {
        Takeover t = takeover(rejectedReservation());
        worker.apply(t.fresh(), "owner-b");
        worker.apply(t.stale(), "owner-a");
        Rejected r = t.rejected();
        assertCompensatedOnce(r);
        assertThat(tasks.markRetry(
                        r.taskId(), "owner-a", new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1)), "late"))
                .isFalse();
        assertThat(tasks.markManual(r.taskId(), "owner-a", "X", "late")).isFalse();
    }

    @Test
    @DisplayName(
            "fault #12: a stale holder racing the new owner mid-step (its CAS and Lua run first) still restores once")
    void staleHolderRunsFirst() throws Exception {
        Takeover t = takeover(rejectedReservation());
        worker.apply(t.stale(), "owner-a");
        assertThat(jdbc.queryForObject(
                        "SELECT status FROM compensation_task WHERE task_id = ?",
                        String.class,
                        t.rejected().taskId()))
                .as("the stale holder cannot settle the task")
                .isEqualTo("CLAIMED");
        worker.apply(t.fresh(), "owner-b");
        assertCompensatedOnce(t.rejected());
    }

    @Test
    @DisplayName("fault #12: crash after the PostgreSQL CAS, before the Lua: the next owner resumes COMPENSATING")
    void resumeAfterCrashBetweenCasAndLua() throws Exception {
        Rejected r = rejectedReservation();
        tasks.claim(r.taskId(), "owner-dead", Duration.ofMinutes(5)).orElseThrow();
        jdbc.update(
                "UPDATE inventory_reservation SET status = 'COMPENSATING' WHERE reservation_id = ?", r.reservationId());
        jdbc.update(
                "UPDATE compensation_task SET lease_until = clock_timestamp() - interval '1 second' WHERE task_id = ?",
                r.taskId());
        worker.runOnce("owner-next");
        assertCompensatedOnce(r);
    }

    @Test
    @DisplayName(
            "fault #12: the worker dies after the Lua restored the unit, before PostgreSQL -> the retry finds the marker, restores nothing twice")
    void crashAfterCompensationLua() throws Exception {
        Rejected r = rejectedReservation();
        io.seckill.failpoint.Failpoints.arm(io.seckill.failpoint.Failpoint.AFTER_COMPENSATION_LUA, "throw*1");
        try {
            Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                worker.runOnce("owner-crashy");
                assertThat(jdbc.queryForObject(
                                "SELECT status FROM compensation_task WHERE task_id = ?", String.class, r.taskId()))
                        .isEqualTo("APPLIED");
            });
        } finally {
            io.seckill.failpoint.Failpoints.disarmAll();
        }
        assertThat(jdbc.queryForObject(
                        "SELECT last_result FROM compensation_task WHERE task_id = ?", String.class, r.taskId()))
                .isEqualTo("ALREADY_COMPENSATED");
        assertCompensatedOnce(r);
    }

    @Test
    @DisplayName("fault #13: Redis lost the reservation -> no blind increment; the task goes MANUAL with an anomaly")
    void redisLostTheReservation() throws Exception {
        Rejected r = rejectedReservation();
        redis.sync().del(r.slot().reservation(r.reservationId().toString()));
        CompensationTasks.Claimed claimed =
                tasks.claim(r.taskId(), "owner-m", Duration.ofMinutes(5)).orElseThrow();
        worker.apply(claimed, "owner-m");
        assertThat(redis.sync().get(r.slot().stock())).isEqualTo("0");
        assertThat(jdbc.queryForMap("SELECT status, last_result FROM compensation_task WHERE task_id = ?", r.taskId()))
                .containsEntry("status", "MANUAL")
                .containsEntry("last_result", "RESERVATION_MISSING");
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE object_id = ? AND anomaly_type = "
                                + "'COMPENSATION_RESERVATION_MISSING'",
                        r.reservationId().toString()))
                .isEqualTo(1);
        assertThat(jdbc.queryForObject(
                        "SELECT status FROM inventory_reservation WHERE reservation_id = ?",
                        String.class,
                        r.reservationId()))
                .as("DESIGN.md, States: given up -> MANUAL_REVIEW")
                .isEqualTo("MANUAL_REVIEW");
        assertThat(worker.runOnce("owner-n")).as("a MANUAL task is left alone").isZero();
        assertThat(redis.sync().get(r.slot().stock())).isEqualTo("0");
    }

    @Test
    @DisplayName(
            "a poison task beside healthy ones: a Redis error is retried (never MANUAL), alerted past the bound, and "
                    + "finishes once it heals; a task for an unknown reservation goes MANUAL with an anomaly; the healthy one finishes")
    void poisonTasksBesideHealthyOnes() throws Exception {
        Rejected poison = rejectedReservation();
        Rejected healthy = rejectedReservation();
        String poisonKey = poison.slot().reservation(poison.reservationId().toString());
        Map<String, String> saved = redis.sync().hgetall(poisonKey);
        redis.sync().del(poisonKey);
        redis.sync().set(poisonKey, "not a hash"); // every command on it fails with WRONGTYPE
        UUID unknownReservation = UUID.randomUUID();
        UUID unknownTask = CompensationTaskRepository.taskId(unknownReservation);
        tasks.insertRelease(List.of(unknownReservation));

        worker.runOnce("owner-p");

        assertThat(status(healthy.reservationId())).isEqualTo("COMPENSATED");
        assertThat(redis.sync().get(healthy.slot().stock())).isEqualTo("1");
        assertThat(jdbc.queryForMap(
                        "SELECT status, last_error FROM compensation_task WHERE task_id = ?", poison.taskId()))
                .containsEntry("status", "RETRY")
                .hasEntrySatisfying("last_error", e -> assertThat(e.toString()).contains("WRONGTYPE"));
        assertThat(status(poison.reservationId())).as("transient: not frozen").isEqualTo("COMPENSATING");
        assertThat(jdbc.queryForObject(
                        "SELECT status FROM compensation_task WHERE task_id = ?", String.class, unknownTask))
                .isEqualTo("MANUAL");
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE object_id = ? AND anomaly_type = "
                                + "'COMPENSATION_RESERVATION_UNKNOWN' AND status = 'OPEN'",
                        unknownReservation.toString()))
                .isEqualTo(1);

        // the second failed attempt crosses the bound (2 in the tests): an anomaly an alert can use, still RETRY
        jdbc.update(
                "UPDATE compensation_task SET next_retry_at = clock_timestamp() WHERE task_id = ?", poison.taskId());
        worker.runOnce("owner-p");
        assertThat(jdbc.queryForObject(
                        "SELECT status FROM compensation_task WHERE task_id = ?", String.class, poison.taskId()))
                .isEqualTo("RETRY");
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE object_id = ? AND anomaly_type = "
                                + "'COMPENSATION_STALLED' AND status = 'OPEN'",
                        poison.reservationId().toString()))
                .isEqualTo(1);
        assertThat(client().getText("/actuator/prometheus"))
                .contains("work_stalled_total{type=\"COMPENSATION_STALLED\",worker=\"compensation\"}");

        // Redis heals: the task finishes, the unit returns once
        redis.sync().del(poisonKey);
        redis.sync().hset(poisonKey, saved);
        jdbc.update(
                "UPDATE compensation_task SET next_retry_at = clock_timestamp() WHERE task_id = ?", poison.taskId());
        worker.runOnce("owner-p");
        assertCompensatedOnce(poison);
    }

    private String status(UUID reservationId) {
        return jdbc.queryForObject(
                "SELECT status FROM inventory_reservation WHERE reservation_id = ?", String.class, reservationId);
    }

    @Test
    @DisplayName(
            "fault #10: the compensation event's send fails (its relay died mid-send): the durable task still restores "
                    + "the unit once, and the event is re-claimed and sent after the lease")
    void compensationEventSendFails() throws Exception {
        Rejected r = rejectedReservation();
        UUID event = jdbc.queryForObject(
                "SELECT event_id FROM event_outbox WHERE aggregate_id = ? "
                        + "AND event_type = 'RESERVATION_COMPENSATE_REQUIRED'",
                UUID.class,
                r.reservationId());
        // the relay that had claimed the event is gone before the broker answered: SENDING under its lease, never SENT
        jdbc.update(
                "UPDATE event_outbox SET status = 'SENDING', sent_at = NULL, lease_owner = 'relay-died-mid-send', "
                        + "lease_until = clock_timestamp() + interval '3 seconds', last_error = NULL WHERE event_id = ?",
                event);
        int attemptsBefore =
                jdbc.queryForObject("SELECT attempt_count FROM event_outbox WHERE event_id = ?", Integer.class, event);

        assertThat(redis.sync().get(r.slot().stock()))
                .as("nothing restored the unit yet")
                .isEqualTo("0");
        Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            worker.runOnce("owner-10");
            assertThat(jdbc.queryForObject(
                            "SELECT status FROM inventory_reservation WHERE reservation_id = ?",
                            String.class,
                            r.reservationId()))
                    .isEqualTo("COMPENSATED");
        });
        assertCompensatedOnce(r);
        assertThat(jdbc.queryForObject("SELECT status FROM event_outbox WHERE event_id = ?", String.class, event))
                .as("the relay's lease still holds")
                .isEqualTo("SENDING");

        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> "SENT"
                        .equals(jdbc.queryForObject(
                                "SELECT status FROM event_outbox WHERE event_id = ?", String.class, event)));
        assertThat(jdbc.queryForObject(
                        "SELECT attempt_count FROM event_outbox WHERE event_id = ?", Integer.class, event))
                .isGreaterThan(attemptsBefore);
        worker.runOnce("owner-10-again");
        assertCompensatedOnce(r);
        awaitSettled(r.activityId(), 2);
        assertInvariants(r.activityId(), true);
    }

    @Test
    @DisplayName(
            "fault #8 end to end: the worker compensates every rejected reservation; conservation holds in both systems")
    void workerDrainsRejections() throws Exception {
        Rejected r = rejectedReservation();
        Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            worker.runOnce("owner-loop");
            assertThat(jdbc.queryForObject(
                            "SELECT status FROM inventory_reservation WHERE reservation_id = ?",
                            String.class,
                            r.reservationId()))
                    .isEqualTo("COMPENSATED");
        });
        assertCompensatedOnce(r);
        awaitSettled(r.activityId(), 2);
        assertInvariants(r.activityId(), true);
    }

    @Test
    @DisplayName("DESIGN.md §13.1: compensate.lua, one row per initial state")
    void luaTable() {
        String p = "seckill:{lua-" + UUID.randomUUID() + "}:";
        String[] keys = {p + "reservation:r1", p + "stock", p + "comp:r1", p + "counter"};
        redis.sync().set(p + "stock", "5");
        redis.sync().hset(p + "counter", Map.of("initial", "6", "open_reserved", "1", "committed", "0"));

        assertThat(run(keys, "r1", "c1")).containsExactly(-1L, "RESERVATION_MISSING");
        assertThat(redis.sync().get(p + "stock")).isEqualTo("5");

        redis.sync().hset(keys[0], Map.of("reservation_id", "r1", "status", "RESERVED"));
        assertThat(run(keys, "other", "c1")).containsExactly(-2L, "RESERVATION_ID_MISMATCH");
        assertThat(run(keys, "r1", "c1")).containsExactly(1L, "COMPENSATED");
        assertThat(redis.sync().get(p + "stock")).isEqualTo("6");
        assertThat(redis.sync().hget(p + "counter", "open_reserved")).isEqualTo("0");
        assertThat(run(keys, "r1", "c1")).containsExactly(2L, "ALREADY_COMPENSATED");
        assertThat(run(keys, "r1", "c2")).containsExactly(-5L, "COMPENSATION_ID_CONFLICT");
        assertThat(redis.sync().get(p + "stock")).isEqualTo("6");

        for (String status : new String[] {"ORDER_CREATED", "PAID", "CANCEL_PENDING"}) {
            String k = p + "reservation:" + status;
            redis.sync().hset(k, Map.of("reservation_id", status, "status", status));
            assertThat(run(new String[] {k, p + "stock", p + "comp:" + status, p + "counter"}, status, "c"))
                    .containsExactly(-3L, "ORDER_ALREADY_EXISTS");
        }
        String cancelled = p + "reservation:x";
        redis.sync().hset(cancelled, Map.of("reservation_id", "x", "status", "CANCELLED"));
        assertThat(run(new String[] {cancelled, p + "stock", p + "comp:x", p + "counter"}, "x", "c"))
                .containsExactly(-4L, "INVALID_STATUS:CANCELLED");
        String compensating = p + "reservation:y";
        redis.sync().hset(compensating, Map.of("reservation_id", "y", "status", "COMPENSATING"));
        assertThat(run(new String[] {compensating, p + "stock", p + "comp:y", p + "counter"}, "y", "cy"))
                .containsExactly(1L, "COMPENSATED");
        assertThat(redis.sync().get(p + "stock")).isEqualTo("7");
    }

    @Test
    @DisplayName("DESIGN.md §13.2: compensate.lua 10,000 times concurrently with the same id: stock +1 exactly once")
    void luaConcurrent() throws Exception {
        String p = "seckill:{lua-" + UUID.randomUUID() + "}:";
        String[] keys = {p + "reservation:r", p + "stock", p + "comp:r", p + "counter"};
        redis.sync().set(p + "stock", "0");
        redis.sync().hset(p + "counter", Map.of("initial", "1", "open_reserved", "1", "committed", "0"));
        redis.sync().hset(keys[0], Map.of("reservation_id", "r", "status", "ORDER_REJECTED"));
        try (ExecutorService pool = Executors.newFixedThreadPool(32)) {
            List<Future<List<Object>>> fs = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                fs.add(pool.submit(() -> COMPENSATE.run(redis, keys, "r", "comp-1", "0", "600000")));
            }
            long applied = 0;
            for (Future<List<Object>> f : fs) {
                long code = ScriptReply.codeOf(f.get());
                assertThat(code).isIn(1L, 2L);
                applied += code == 1 ? 1 : 0;
            }
            assertThat(applied).isEqualTo(1);
        }
        assertThat(redis.sync().get(p + "stock")).isEqualTo("1");
        assertThat(redis.sync().get(p + "comp:r")).isEqualTo("comp-1");
    }

    private List<Object> run(String[] keys, String rid, String compensationId) {
        List<Object> r = COMPENSATE.run(redis, keys, rid, compensationId, "0", "600000");
        return List.of(ScriptReply.codeOf(r), ScriptReply.text(r, 1));
    }

    private void assertCompensatedOnce(Rejected r) {
        assertThat(redis.sync().get(r.slot().stock())).isEqualTo("1");
        assertThat(redis.sync().hget(r.slot().counter(), "open_reserved")).isIn("0", "1");
        assertThat(redis.sync()
                        .get(r.slot().compensationMarker(r.reservationId().toString())))
                .isEqualTo(r.taskId().toString());
        assertThat(redis.sync().hget(r.slot().reservation(r.reservationId().toString()), "status"))
                .isEqualTo("COMPENSATED");
        assertThat(jdbc.queryForObject(
                        "SELECT status FROM compensation_task WHERE task_id = ?", String.class, r.taskId()))
                .isEqualTo("APPLIED");
        assertThat(jdbc.queryForObject(
                        "SELECT status FROM inventory_reservation WHERE reservation_id = ?",
                        String.class,
                        r.reservationId()))
                .isEqualTo("COMPENSATED");
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", r.activityId()))
                .isEqualTo(1);
    }

    /** Two claims of one task: owner-a's lease expired, then owner-b claimed it. */
    record Takeover(Rejected rejected, CompensationTasks.Claimed stale, CompensationTasks.Claimed fresh) {}

    private Takeover takeover(Rejected r) {
        CompensationTasks.Claimed stale =
                tasks.claim(r.taskId(), "owner-a", Duration.ofMinutes(5)).orElseThrow();
        jdbc.update(
                "UPDATE compensation_task SET lease_until = clock_timestamp() - interval '1 second' WHERE task_id = ?",
                r.taskId());
        return new Takeover(
                r,
                stale,
                tasks.claim(r.taskId(), "owner-b", Duration.ofMinutes(5)).orElseThrow());
    }
}
