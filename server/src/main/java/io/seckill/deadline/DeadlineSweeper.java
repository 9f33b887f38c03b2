package io.seckill.deadline;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.SaleRegistry;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.anomaly.StalledWork;
import io.seckill.compensation.Rejections;
import io.seckill.config.SeckillProperties;
import io.seckill.mq.BacklogLimit;
import io.seckill.mq.OrderBacklog;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.OrderCreateRequested;
import io.seckill.reservation.Reservations;
import io.seckill.state.ObjectKind;
import io.seckill.state.ReservationStatus;
import io.seckill.worker.EntryFailures;
import io.seckill.worker.PollingWorker;
import io.seckill.worker.SlotPass;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The business-deadline sweeper (DESIGN.md §11.2). The SLO, the business deadline and the TTL are three
 * different things: only the hard deadline rejects, and only through PostgreSQL. For each
 * reservation past its deadline with no decision in PostgreSQL, a tombstone (ORDER_REJECTED,
 * BUSINESS_DEADLINE_EXCEEDED) is written - or a RESERVED row moved by CAS - together with its
 * compensation task and event, in one transaction; only then does the unit go back, through the
 * compensation worker. A message arriving after the tombstone is LATE_REJECTED by the consumer.
 * Every step is idempotent (insert-if-absent, CAS), so several sweepers may run.
 */
@Component
class DeadlineSweeper extends PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(DeadlineSweeper.class);
    static final String REASON = "BUSINESS_DEADLINE_EXCEEDED";
    private static final LuaScript DUE = LuaScript.load("deadline_due");

    private final SaleRegistry registry;
    private final Redis redis;
    private final Reservations reservations;
    private final Rejections rejections;
    private final Anomalies anomalies;
    private final StalledWork stalled;
    private final EntryFailures failures = new EntryFailures();
    private final TransactionTemplate tx;
    private final SlotPass slots;

    DeadlineSweeper(
            SaleRegistry registry,
            Redis redis,
            Reservations reservations,
            Rejections rejections,
            Anomalies anomalies,
            StalledWork stalled,
            TransactionTemplate tx,
            OrderBacklog backlog,
            SeckillProperties props,
            Clock clock,
            MeterRegistry meters) {
        super("deadline-sweeper", "deadline.sweep", java.time.Duration.ofMillis(500), props, meters);
        this.slots = new SlotPass(
                "deadline-sweeper",
                redis::nodeOf,
                clock,
                meters,
                SlotPass.reportingTo(stalled, "deadline-sweeper", AnomalyKind.DEADLINE_SLOT_STALLED));
        this.limit = new BacklogLimit(props.deadline().pauseWhenBacklogOlderThan(), 1.0);
        io.micrometer.core.instrument.Gauge.builder("deadline.paused", this, w -> w.limit.paused() ? 1 : 0)
                .register(meters);
        this.registry = registry;
        this.redis = redis;
        this.reservations = reservations;
        this.rejections = rejections;
        this.anomalies = anomalies;
        this.stalled = stalled;
        this.tx = tx;
        this.backlog = backlog;
    }

    private final BacklogLimit limit;
    private final OrderBacklog backlog;

    @Override
    protected int runPass() {
        if (backedUp()) {
            return 0;
        }
        return sweepOnce();
    }

    /**
     * DESIGN.md §11.3 point 6: while the broker is backed up, reservations only look expired - their
     * messages are still queued - so time-driven rejection waits. An unknown backlog keeps the sweeper
     * as it was: paused stays paused rather than rejecting on a guess.
     */
    boolean backedUp() {
        boolean was = limit.paused();
        OrderBacklog.Reading r = backlog.read();
        boolean backed = limit.update(r);
        if (backed != was) {
            log.warn(
                    "deadline.{} order_backlog_age_ms={} threshold_ms={}",
                    backed ? "paused" : "resumed",
                    r.ageMs(),
                    limit.limitMs());
        }
        return backed;
    }

    /** For tests: a lower threshold than configured, from a fresh reading on. */
    void pauseThreshold(Duration threshold) {
        limit.set(threshold, 1.0);
        backlog.expire();
    }

    /** One pass over every slot of every live sale; returns how many due entries were handled. */
    int sweepOnce() {
        return slots.run(registry.liveSlots(), this::sweepSlot);
    }

    private int sweepSlot(SkuSlot slot) {
        List<Object> reply = DUE.run(redis, new String[] {slot.deadlines()}, "200");
        if (reply.isEmpty()) {
            return 0;
        }
        List<UUID> ids = new ArrayList<>(reply.size());
        for (int i = 0; i < reply.size(); i++) {
            String entry = ScriptReply.text(reply, i);
            try {
                ids.add(UUID.fromString(entry));
            } catch (IllegalArgumentException e) {
                entryFailed(slot, entry, e);
            }
        }
        Map<UUID, ReservationStatus> states = reservations.states(ids);
        List<String> settled = new ArrayList<>();
        for (UUID rid : ids) {
            ReservationStatus status = states.get(rid);
            try {
                if ((status != null && status != ReservationStatus.RESERVED) || reject(slot, rid, status != null)) {
                    settled.add(rid.toString());
                    failures.succeeded(slot.deadlines(), rid.toString());
                }
            } catch (RuntimeException e) {
                // one entry that cannot be decided never stops the pass for everyone else's reservations
                entryFailed(slot, rid.toString(), e);
            }
        }
        if (!settled.isEmpty()) {
            redis.sync().zrem(slot.deadlines(), settled.toArray(String[]::new));
        }
        return reply.size();
    }

    private void entryFailed(SkuSlot slot, String entry, RuntimeException e) {
        int attempts = failures.failed(redis, slot.deadlines(), entry);
        String error = e.getClass().getSimpleName() + ": " + e.getMessage();
        meters.counter("deadline.entry.failed").increment();
        log.warn(
                "deadline.entry_failed reservation_id={} slot={} attempts={} backoff_ms={} error_class={}: {}",
                entry,
                slot.tag(),
                attempts,
                EntryFailures.backoffMs(attempts),
                e.getClass().getName(),
                e.getMessage());
        stalled.failed(
                "deadline-sweeper",
                AnomalyKind.DEADLINE_SWEEP_STALLED,
                ObjectKind.RESERVATION,
                entry,
                slot.activityId(),
                slot.skuId(),
                attempts,
                error,
                Map.of("slot", slot.tag()));
    }

    /**
     * A reservation past its deadline whose request (or message) PostgreSQL already holds under another reservation
     * id - after an id-key rotation and a lost Redis hash, the same request reserved twice. No tombstone can be
     * written for it (the request identity is unique), and its unit stays held in Redis: a person decides (the
     * runbook's repair), told by an anomaly naming both reservations; the entry leaves the sweeper's index.
     */
    private void requestConflict(SkuSlot slot, OrderCreateRequested x, Map.Entry<UUID, ReservationStatus> other) {
        meters.counter("deadline.request.conflict").increment();
        log.error(
                "deadline.request_conflict reservation_id={} request_id={} user_id={} held_by={} held_status={}: the "
                        + "request is decided in PostgreSQL under another reservation; recorded for a person",
                x.reservationId(),
                x.requestId(),
                x.userId(),
                other.getKey(),
                other.getValue());
        anomalies.record(
                AnomalyKind.DEADLINE_REQUEST_CONFLICT,
                ObjectKind.RESERVATION,
                x.reservationId().toString(),
                slot.activityId(),
                slot.skuId(),
                Map.of(
                        "slot",
                        slot.tag(),
                        "request_id",
                        x.requestId().toString(),
                        "held_by_reservation",
                        other.getKey().toString(),
                        "held_status",
                        other.getValue().name()));
    }

    /** @return true when PostgreSQL now holds a decision for the reservation */
    private boolean reject(SkuSlot slot, UUID rid, boolean knownToPostgres) {
        Map<String, String> h = redis.sync().hgetall(slot.reservation(rid.toString()));
        if (h.isEmpty() && !knownToPostgres) {
            meters.counter("deadline.redis.missing").increment();
            log.error(
                    "deadline.reservation_missing reservation_id={} slot={}: past its deadline, unknown to PostgreSQL and "
                            + "gone from Redis; recorded for reconciliation",
                    rid,
                    slot.tag());
            anomalies.record(
                    AnomalyKind.DEADLINE_RESERVATION_MISSING,
                    ObjectKind.RESERVATION,
                    rid.toString(),
                    slot.activityId(),
                    slot.skuId(),
                    Map.of("slot", slot.tag()));
            return true;
        }
        OrderCreateRequested x = h.isEmpty()
                ? null
                : OrderCreateRequested.of(
                        UUID.fromString(h.get("message_id")),
                        UUID.fromString(h.get("request_id")),
                        rid,
                        slot.activityId(),
                        slot.skuId(),
                        Long.parseLong(h.get("user_id")),
                        Long.parseLong(h.get("reserved_at_ms")),
                        Long.parseLong(h.get("business_deadline_ms")));
        Boolean decided = tx.execute(s -> {
            boolean rejected = x != null && !knownToPostgres
                    ? reservations.insertTombstone(x, REASON)
                    : reservations.markRejected(List.of(rid), REASON) == 1;
            if (!rejected) {
                if (reservations.states(List.of(rid)).containsKey(rid)) {
                    return true;
                }
                if (x != null) {
                    // the request is PostgreSQL's under another reservation id: not this sweeper's to decide
                    Optional<Map.Entry<UUID, ReservationStatus>> other = reservations.sameRequest(x);
                    if (other.isPresent()) {
                        requestConflict(slot, x, other.get());
                        return true;
                    }
                }
                return false;
            }
            Reservations.Target t = reservations.target(rid).orElseThrow();
            rejections.compensate(List.of(new Rejections.Rejected(rid, t.activityId(), t.skuId(), t.userId())), REASON);
            meters.counter("deadline.rejected").increment();
            log.info(
                    "deadline.rejected reservation_id={} activity_id={} sku_id={} user_id={} reason={}",
                    rid,
                    t.activityId(),
                    t.skuId(),
                    t.userId(),
                    REASON);
            return true;
        });
        return Boolean.TRUE.equals(decided);
    }
}
