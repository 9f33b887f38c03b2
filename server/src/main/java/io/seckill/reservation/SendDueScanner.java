package io.seckill.reservation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.SaleRegistry;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.anomaly.StalledWork;
import io.seckill.config.SeckillProperties;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.mq.MqClients;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.retry.Backoff;
import io.seckill.state.ObjectKind;
import io.seckill.worker.PollingWorker;
import io.seckill.worker.SlotPass;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The send-due rescan (DESIGN.md §7.2, §10.2): every slot's due entries are claimed with a lease in
 * Lua, re-sent with the ORIGINAL message_id and body (rebuilt from the recovery fields), and
 * settled only while the lease is still this scanner's. A scanner that dies simply lets its
 * leases expire; any instance picks the entries up again.
 */
@Component
class SendDueScanner extends PollingWorker {

    /** A send whose outcome is unknown is re-sent after 1 s doubling to 30 s (same message id). */
    private static final Backoff UNKNOWN_BACKOFF =
            new Backoff(java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(30));

    private static final Logger log = LoggerFactory.getLogger(SendDueScanner.class);
    private static final LuaScript CLAIM_DUE = LuaScript.load("claim_due");
    private static final LuaScript MARK_PUBLISHED = LuaScript.load("mark_published");
    private static final LuaScript MARK_UNKNOWN = LuaScript.load("mark_send_unknown");
    private static final LuaScript SET_ASIDE = LuaScript.load("set_aside_entry");

    private final SaleRegistry registry;
    private final Redis redis;
    private final DefaultMQProducer producer;
    private final String owner = MqClients.instanceName("send-due");
    private final Anomalies anomalies;
    private final Counter leaseExpired;
    private final SlotPass slots;

    SendDueScanner(
            SeckillProperties props,
            SaleRegistry registry,
            Redis redis,
            DefaultMQProducer producer,
            Anomalies anomalies,
            StalledWork stalled,
            Clock clock,
            MeterRegistry meters) {
        super("send-due-scanner", "reservation.scan", props.reservation().scanInterval(), props, meters);
        this.slots = new SlotPass(
                "send-due-scanner",
                redis::nodeOf,
                clock,
                meters,
                SlotPass.reportingTo(stalled, "send-due-scanner", AnomalyKind.SEND_DUE_SLOT_STALLED));
        this.anomalies = anomalies;
        this.registry = registry;
        this.redis = redis;
        this.producer = producer;
        this.leaseExpired = Counter.builder("reservation.send.lease.expired")
                .description("send_due entries claimed again after the scanner holding them let its lease run out")
                .register(meters);
    }

    @Override
    protected int runPass() {
        return scanOnce();
    }

    /** One pass over every slot of every live sale; returns how many entries were claimed. */
    int scanOnce() {
        return slots.run(registry.liveSlots(), this::scanSlot);
    }

    private int scanSlot(SkuSlot slot) {
        var cfg = props.reservation();
        List<Object> r = CLAIM_DUE.run(
                redis,
                new String[] {slot.sendDue()},
                Integer.toString(cfg.scanBatch()),
                Long.toString(cfg.scanLease().toMillis()),
                owner);
        List<ClaimedEntry> claimed = ClaimedEntry.all(r);
        List<CompletableFuture<Void>> sends = new ArrayList<>(claimed.size());
        for (ClaimedEntry entry : claimed) {
            String rid = entry.reservationId();
            if (entry.missing()) {
                orphan(slot, rid);
                continue;
            }
            try {
                OrderCreateRequested body = entry.message();
                int attempts = entry.sendAttempts();
                String expiredOwner = entry.expiredOwner();
                if (!expiredOwner.isEmpty()) {
                    // the scanner before this one claimed the entry and neither settled it nor gave it back in time
                    leaseExpired.increment();
                    log.warn(
                            "reservation.send_lease_expired reservation_id={} expired_owner={} owner={} attempt_count={}",
                            rid,
                            expiredOwner,
                            owner,
                            attempts);
                }
                sends.add(resend(slot, body, attempts));
            } catch (RuntimeException e) {
                // recovery fields that cannot be read never heal by retrying: the entry is set aside (it no longer
                // counts
                // as a backlog that would pause admission for everyone) and reported; the others of the claim are sent
                unreadable(slot, rid, e);
            }
        }
        // all of a claim are sent at once, asynchronously; the pass ends when each is settled or timed out
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
                .orTimeout(props.mq().sendTimeout().toMillis() * 3, TimeUnit.MILLISECONDS)
                .exceptionally(e -> null)
                .join();
        return claimed.size();
    }

    /**
     * A send_due entry whose reservation hash is gone cannot be re-sent (its recovery fields went with
     * it). claim_due.lua dropped it from the index; it is recorded as an anomaly that reconciliation
     * resolves once PostgreSQL shows the reservation decided, and leaves open for a person otherwise.
     */
    private void orphan(SkuSlot slot, String rid) {
        meters.counter("reservation.send.missing").increment();
        log.error(
                "reservation.send_due_orphan reservation_id={} slot={}: reservation hash missing; recorded as "
                        + "SEND_DUE_ORPHAN for reconciliation",
                rid,
                slot.tag());
        anomalies.record(
                AnomalyKind.SEND_DUE_ORPHAN,
                ObjectKind.RESERVATION,
                rid,
                slot.activityId(),
                slot.skuId(),
                Map.of("slot", slot.tag(), "index", "send_due"));
    }

    private void unreadable(SkuSlot slot, String rid, RuntimeException e) {
        SET_ASIDE.run(redis, new String[] {slot.sendDue(), slot.sendAside()}, rid);
        meters.counter("reservation.send.unreadable").increment();
        log.error(
                "reservation.send_due_unreadable reservation_id={} slot={} error_class={}: {}; set aside in {}",
                rid,
                slot.tag(),
                e.getClass().getName(),
                e.getMessage(),
                slot.sendAside());
        anomalies.record(
                AnomalyKind.SEND_DUE_UNREADABLE,
                ObjectKind.RESERVATION,
                rid,
                slot.activityId(),
                slot.skuId(),
                Map.of(
                        "slot",
                        slot.tag(),
                        "set_aside_in",
                        slot.sendAside(),
                        "error",
                        e.getClass().getSimpleName() + ": " + e.getMessage()));
    }

    private CompletableFuture<Void> resend(SkuSlot slot, OrderCreateRequested body, int attempts) {
        String rid = body.reservationId().toString();
        String[] keys = {slot.reservation(rid), slot.sendDue()};
        meters.counter("reservation.resend").increment();
        meters.summary("reservation.send.attempts").record(attempts);
        log.info(
                "reservation.mq_resend_claimed reservation_id={} message_id={} attempt_count={}",
                rid,
                body.messageId(),
                attempts);
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            producer.send(
                    OrderRequestSender.message(props.mq().orderRequestTopic(), body, attempts - 1),
                    new org.apache.rocketmq.client.producer.SendCallback() {
                        @Override
                        public void onSuccess(SendResult sr) {
                            settle(
                                    keys,
                                    rid,
                                    attempts,
                                    sr.getSendStatus() == SendStatus.SEND_OK
                                            ? null
                                            : "send status " + sr.getSendStatus());
                            done.complete(null);
                        }

                        @Override
                        public void onException(Throwable e) {
                            settle(keys, rid, attempts, e.getClass().getSimpleName() + ": " + e.getMessage());
                            done.complete(null);
                        }
                    },
                    props.mq().sendTimeout().toMillis());
        } catch (Exception e) {
            settle(keys, rid, attempts, e.getClass().getSimpleName() + ": " + e.getMessage());
            done.complete(null);
        }
        return done;
    }

    /** Marks the entry PUBLISHED (error == null) or UNKNOWN with backoff, only while this scanner holds the lease. */
    private void settle(String[] keys, String rid, int attempts, String error) {
        try {
            if (error == null) {
                Failpoints.hit(Failpoint.AFTER_MQ_SEND_BEFORE_REDIS_MARK);
                ScriptReply m = ScriptReply.of(MARK_PUBLISHED.run(redis, keys, rid, owner));
                if (m.refused()) {
                    log.warn("reservation.mark_published_refused reservation_id={} result={}", rid, m.word());
                }
                return;
            }
            unknown(keys, rid, attempts, error);
        } catch (RuntimeException e) {
            // the lease simply expires and the entry is claimed again: the same message_id is re-sent
            log.warn(
                    "reservation.settle_failed reservation_id={} error_class={}: {}",
                    rid,
                    e.getClass().getName(),
                    e.getMessage());
        }
    }

    private void unknown(String[] keys, String rid, int attempts, String error) {
        meters.counter("reservation.send.unknown").increment();
        long backoff = UNKNOWN_BACKOFF.after(attempts).toMillis();
        log.warn(
                "reservation.mq_send_unknown reservation_id={} attempt_count={} backoff_ms={}: {}",
                rid,
                attempts,
                backoff,
                error);
        ScriptReply m = ScriptReply.of(MARK_UNKNOWN.run(
                redis,
                keys,
                rid,
                owner,
                Long.toString(backoff),
                error.length() > 300 ? error.substring(0, 300) : error));
        if (m.refused()) {
            log.warn("reservation.mark_unknown_refused reservation_id={} result={}", rid, m.word());
        }
    }
}
