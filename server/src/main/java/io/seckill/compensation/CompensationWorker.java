package io.seckill.compensation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.anomaly.StalledWork;
import io.seckill.config.SeckillProperties;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.metrics.LogContext;
import io.seckill.mq.MqClients;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.Reservations;
import io.seckill.retry.Backoff;
import io.seckill.state.ObjectKind;
import io.seckill.worker.PollingWorker;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The compensation worker (DESIGN.md §7.5, §9.6, §9.7, §16.10-16.11): a rejected reservation's unit goes
 * back to Redis exactly once. The task is claimed with a lease; PostgreSQL moves the reservation
 * ORDER_REJECTED -> COMPENSATING (a worker that takes over an expired lease resumes one already
 * COMPENSATING); compensate.lua restores stock at most once (marker + status); the reservation
 * becomes COMPENSATED and the task APPLIED only while this worker still owns the lease. Anything the
 * Lua refuses (reservation missing in Redis, order exists, id conflict) goes to MANUAL with an
 * anomaly, and the reservation to MANUAL_REVIEW - never a blind increment. Redis or database errors are
 * transient: retried with capped backoff for as long as they last, an anomaly once they outlast the bound.
 */
@Component
public class CompensationWorker extends PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(CompensationWorker.class);
    private static final LuaScript COMPENSATE = LuaScript.load("compensate");

    /** Compensations that found their unit already given back (a retry, a second worker): the design's effect-once in action. */
    private final Counter alreadyApplied;

    private static final Backoff RETRY = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30));

    private final CompensationTaskRepository tasks;
    private final Reservations reservations;
    private final Anomalies anomalies;
    private final StalledWork stalled;
    private final SaleRegistry registry;
    private final Redis redis;
    private final TransactionTemplate tx;
    private final String owner = MqClients.instanceName("compensation");

    private final Clock clock;

    CompensationWorker(
            CompensationTaskRepository tasks,
            Reservations reservations,
            Anomalies anomalies,
            StalledWork stalled,
            SaleRegistry registry,
            Redis redis,
            TransactionTemplate tx,
            SeckillProperties props,
            Clock clock,
            MeterRegistry meters) {
        super("compensation", "compensation.worker", Duration.ofMillis(200), props, meters);
        this.clock = clock;
        this.tasks = tasks;
        this.reservations = reservations;
        this.anomalies = anomalies;
        this.stalled = stalled;
        this.registry = registry;
        this.redis = redis;
        this.tx = tx;
        showBacklog("compensation.pending", "compensation.oldest.age.seconds", tasks::backlog);
        // registered at start: an alert on its increase sees a zero series, not an absent one
        meters.counter("compensation.redis.missing");
        this.alreadyApplied = meters.counter("compensation.already.applied");
    }

    @Override
    protected int runPass() {
        return runOnce(owner);
    }

    /** One claim-and-apply pass as {@code leaseOwner}; returns how many tasks were claimed. */
    public int runOnce(String leaseOwner) {
        List<CompensationTasks.Claimed> claimed = tasks.claimDue(100, leaseOwner, Duration.ofSeconds(30));
        for (CompensationTasks.Claimed task : claimed) {
            try (LogContext ids =
                    LogContext.of("compensation_id", task.taskId(), "reservation_id", task.reservationId())) {
                apply(task, leaseOwner);
            } catch (RuntimeException e) {
                // Redis or PostgreSQL unavailable, a timeout: transient - retried with capped backoff for as long as it
                // lasts, the task stays in the pending gauges, and past the bound a person hears of it
                String error = e.getClass().getSimpleName() + ": " + e.getMessage();
                meters.counter("compensation", "result", "retry").increment();
                log.warn(
                        "compensation.retry compensation_id={} reservation_id={} attempt_count={} error_class={}: {}",
                        task.taskId(),
                        task.reservationId(),
                        task.attempt(),
                        e.getClass().getName(),
                        e.getMessage());
                tasks.markRetry(task.taskId(), leaseOwner, RETRY, error);
                stalled.failed(
                        "compensation",
                        AnomalyKind.COMPENSATION_STALLED,
                        ObjectKind.RESERVATION,
                        task.reservationId().toString(),
                        null,
                        null,
                        task.attempt(),
                        error,
                        Map.of("compensation_id", task.taskId().toString()));
            }
        }
        return claimed.size();
    }

    /** How long a compensated hash and its marker are kept ({@link Activity#terminalKeyTtl}). */
    private long terminalTtlMs(long activityId) {
        return registry.find(activityId)
                .map(a -> a.terminalKeyTtl(clock.instant()))
                .orElse(Activity.JUDGED_AFTER_LAST_DEADLINE)
                .toMillis();
    }

    /**
     * Gives a compensated reservation's unit back to Redis again, for a reservation PostgreSQL holds COMPENSATED
     * whose Redis write was lost (a failover that dropped compensate.lua's effect: the hash is back at RESERVED and
     * the unit held). compensate.lua moves it once, by its marker under the task's id, so a second call, or one whose
     * first write did survive, changes nothing. Returns the script's word; throws when the script refuses.
     */
    public String reapply(SkuSlot slot, UUID reservationId, UUID taskId) {
        String r = reservationId.toString();
        List<Object> reply = COMPENSATE.run(
                redis,
                new String[] {slot.reservation(r), slot.stock(), slot.compensationMarker(r), slot.counter()},
                r,
                taskId.toString(),
                Long.toString(clock.millis()),
                Long.toString(terminalTtlMs(slot.activityId())));
        long code = ScriptReply.of(reply).code();
        String word = ScriptReply.of(reply).word();
        if (code != 1 && code != 2) {
            throw new IllegalStateException("compensate.lua refused reservation " + r + ": " + word);
        }
        log.warn(
                "compensation.reapplied reservation_id={} compensation_id={} slot={} result={}",
                r,
                taskId,
                slot.tag(),
                word);
        return word;
    }

    /** Applies one claimed task (public so tests can drive it with a chosen owner and interleaving). */
    public void apply(CompensationTasks.Claimed task, String leaseOwner) {
        UUID rid = task.reservationId();
        if (reservations.target(rid).isEmpty()) {
            manual(
                    task,
                    leaseOwner,
                    new Reservations.Target(rid, 0, 0, 0, null),
                    "RESERVATION_UNKNOWN",
                    "the task names a reservation PostgreSQL does not have");
            return;
        }
        boolean authorized = reservations.markCompensating(rid);
        // read after the CAS: on zero rows this classifies the state that made it fail
        Reservations.Target target = reservations.target(rid).orElseThrow();
        if (!authorized) {
            switch (target.status()) {
                case COMPENSATING ->
                    log.info("compensation.resumed compensation_id={} reservation_id={}", task.taskId(), rid);
                case COMPENSATED -> {
                    alreadyApplied.increment();
                    finish(task, leaseOwner, "ALREADY_COMPENSATED");
                    return;
                }
                default -> {
                    manual(task, leaseOwner, target, "STATE_CONFLICT", "reservation is " + target.status());
                    return;
                }
            }
        } else {
            log.info("compensation.authorized compensation_id={} reservation_id={}", task.taskId(), rid);
        }
        Activity.Sku sku = registry.find(target.activityId())
                .map(a -> a.sku(target.skuId()))
                .orElse(null);
        if (sku == null) {
            manual(
                    task,
                    leaseOwner,
                    target,
                    "SKU_UNKNOWN",
                    "no sale " + target.activityId() + " with sku " + target.skuId());
            return;
        }
        SkuSlot slot = SkuSlot.forUser(target.activityId(), target.skuId(), sku.buckets(), target.userId());
        String r = rid.toString();
        List<Object> reply = COMPENSATE.run(
                redis,
                new String[] {slot.reservation(r), slot.stock(), slot.compensationMarker(r), slot.counter()},
                r,
                task.taskId().toString(),
                Long.toString(clock.millis()),
                Long.toString(terminalTtlMs(target.activityId())));
        long code = ScriptReply.of(reply).code();
        String word = ScriptReply.of(reply).word();
        if (code == 2) {
            alreadyApplied.increment();
        }
        if (code == 1 || code == 2) {
            Failpoints.hit(Failpoint.AFTER_COMPENSATION_LUA);
            log.info(
                    "compensation.{} compensation_id={} reservation_id={} activity_id={} sku_id={} user_id={}",
                    code == 1 ? "redis_applied" : "already_applied",
                    task.taskId(),
                    rid,
                    target.activityId(),
                    target.skuId(),
                    target.userId());
            finish(task, leaseOwner, word);
            return;
        }
        if (code == -1) {
            meters.counter("compensation.redis.missing").increment();
        } else {
            meters.counter("compensation.state.conflict").increment();
        }
        manual(task, leaseOwner, target, word, "compensate.lua refused: " + word);
    }

    private void finish(CompensationTasks.Claimed task, String leaseOwner, String result) {
        Boolean done = tx.execute(s -> {
            if (!tasks.markApplied(task.taskId(), leaseOwner, result)) {
                s.setRollbackOnly();
                return false;
            }
            reservations.markCompensated(task.reservationId());
            return true;
        });
        if (Boolean.TRUE.equals(done)) {
            meters.counter("compensation", "result", result.toLowerCase()).increment();
        } else {
            meters.counter("compensation", "result", "lease_lost").increment();
            log.debug(
                    "compensation.lease_lost compensation_id={} reservation_id={} owner={}: the current owner finishes it",
                    task.taskId(),
                    task.reservationId(),
                    leaseOwner);
        }
    }

    private void manual(
            CompensationTasks.Claimed task,
            String leaseOwner,
            Reservations.Target target,
            String result,
            String error) {
        meters.counter("compensation", "result", "manual").increment();
        log.error(
                "compensation.manual compensation_id={} reservation_id={} activity_id={} sku_id={} user_id={} result={}",
                task.taskId(),
                target.reservationId(),
                target.activityId(),
                target.skuId(),
                target.userId(),
                result);
        tx.executeWithoutResult(s -> {
            if (tasks.markManual(task.taskId(), leaseOwner, result, error)) {
                // DESIGN.md, States: the reservation leaves the states that must progress; a person takes it from here
                boolean frozen = reservations.markManualReview(target.reservationId());
                Map<String, Object> evidence = new LinkedHashMap<>();
                evidence.put("compensation_id", task.taskId().toString());
                evidence.put("reservation_status", target.status());
                evidence.put("result", result);
                evidence.put("error", error);
                evidence.put("reservation_frozen", frozen);
                anomalies.record(
                        AnomalyKind.compensationRefused(result),
                        ObjectKind.RESERVATION,
                        target.reservationId().toString(),
                        target.activityId(),
                        target.skuId(),
                        evidence);
            }
        });
    }
}
