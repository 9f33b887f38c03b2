package io.seckill.reconcile;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.rocketmq.common.MixAll;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.activity.InventoryRepository;
import io.seckill.activity.SaleRegistry;
import io.seckill.activity.SkuInventory;
import io.seckill.anomaly.AnomalyRepository;
import io.seckill.compensation.CompensationTaskRepository;
import io.seckill.config.SeckillProperties;
import io.seckill.hold.HoldRepository;
import io.seckill.mq.BrokerBacklog;
import io.seckill.outbox.OutboxRepository;
import io.seckill.projection.OrderProjection;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.Judged;
import io.seckill.reservation.ReservationRepository;
import io.seckill.state.ReservationStatus;
import io.seckill.state.SaleStatus;

/**
 * Recovery from Redis losing a SKU's keys mid-sale (a restart without persistence, a failover that
 * lost writes). Never a blind increment: admission for the SKU is paused, the pipeline drained,
 * then the counters are recalibrated from PostgreSQL at activity level and the known reservations
 * re-projected; the sale resumes. The algorithm is in docs/RECONCILIATION.md.
 */
@Component
public record RedisRecalibration(InventoryRepository inventory, RepairRepository repairLog,
        ReservationRepository reservations, OutboxRepository outboxRepo, OrderProjection projection,
        AnomalyRepository anomalies, HoldRepository holds, Repairs repairs,
        Redis redis, SeckillProperties props, MeterRegistry meters,
        SaleRegistry registry, BrokerBacklog backlog) {

    private static final Logger log = LoggerFactory.getLogger(RedisRecalibration.class);
    private static final LuaScript RECALIBRATE = LuaScript.load("recalibrate");

    /**
     * One step of the recovery of {@code sku}; returns HELD, PAUSED_DRAINING (call again later) or
     * RECALIBRATED. Safe to run from several reconcilers: the recalibration itself is one repair task.
     */
    String recover(Activity a, Activity.Sku sku, Map<String, Integer> found) {
        long activityId = a.activityId();
        String object = activityId + ":" + sku.skuId();
        SkuInventory pg = pg(activityId, sku.skuId());
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("pg", pg.toString());
        evidence.put("redis_slots_with_counters", warmedSlots(activityId, sku));
        if (anomalies.record("REDIS_KEYS_LOST", "SKU", object, activityId, sku.skuId(), evidence)) {
            meters.counter("reconcile.anomaly", "type", "REDIS_KEYS_LOST").increment();
            log.error("reconcile.redis_keys_lost activity_id={} sku_id={} evidence={}", activityId, sku.skuId(), evidence);
        }
        found.merge("REDIS_KEYS_LOST", 1, Integer::sum);
        if (!holds.holds(List.of(object)).isEmpty()) {
            return "HELD";
        }
        pause(a, sku);
        String drain = drained(activityId, sku.skuId());
        if (drain != null) {
            log.warn("reconcile.recalibration_waiting activity_id={} sku_id={} reason={}", activityId, sku.skuId(), drain);
            return "PAUSED_DRAINING";
        }
        // the generation makes a later loss of the same SKU a new repair, while two reconcilers of this one share it
        long generation = repairLog.done("REDIS_RECALIBRATION", object);
        Repairs.Run r = repairs.run("REDIS_RECALIBRATION", "SKU", object, generation, "RECALIBRATED", Reconciler.OPERATOR,
                "Redis lost the keys of a live SKU", evidence, () -> recalibrate(a, sku));
        return r == Repairs.Run.FAILED ? "PAUSED_DRAINING" : "RECALIBRATED";
    }

    /** Step 1: every slot of the SKU refuses admission (its meta says PAUSED) until recalibrated. */
    private void pause(Activity a, Activity.Sku sku) {
        for (SkuSlot slot : a.slots(sku)) {
            redis.sync().hset(slot.meta(), Map.of("status", "PAUSED", "start_ms", Long.toString(a.startsAt().toEpochMilli()),
                    "end_ms", Long.toString(a.endsAt().toEpochMilli())));
        }
    }

    /** Step 2: null when nothing is in flight for the SKU any more, else why not. */
    private String drained(long activityId, long skuId) {
        long outbox = outboxRepo.skuBacklog(activityId, skuId);
        if (outbox > 0) {
            return outbox + " outbox events unsent";
        }
        try {
            // a message waiting for redelivery sits in the group's retry topic: it is still in flight
            String group = props.mq().orderConsumerGroup();
            long age = backlog.oldestUnconsumedAgeMs(group, props.mq().orderRequestTopic(), MixAll.getRetryTopic(group));
            return age == 0 ? null : "order messages unconsumed for " + age + " ms";
        } catch (Exception e) {
            return "order backlog unknown: " + e.getMessage();
        }
    }

    /** Steps 3-5, as one repair task. */
    private String recalibrate(Activity a, Activity.Sku sku) {
        long activityId = a.activityId();
        SkuInventory pg = pg(activityId, sku.skuId());
        int committed = pg.occupied() + pg.sold();
        // the sale's status now, from PostgreSQL: a cached one could reopen a closed sale in Redis
        String status = registry.load(activityId).map(Activity::status).filter(SaleStatus::warmed).map(Enum::name)
                .orElse("PAUSED");
        int restored = 0;
        int absorbed = 0;
        for (Judged k : reservations.known(activityId, sku.skuId())) {
            SkuSlot slot = SkuSlot.forUser(activityId, sku.skuId(), sku.buckets(), k.userId());
            String rid = k.reservationId().toString();
            switch (k.status()) {
                case ORDER_CREATED, CANCELLED -> {
                    String target = k.status() == ReservationStatus.CANCELLED ? "CANCELLED"
                            : OrderProjection.redisStatus(k.orderStatus());
                    restored += LuaScript.code(projection.restoreHash(slot, rid, String.valueOf(k.orderId()), target, k.userId(),
                            k.requestId().toString(), k.messageId().toString())) == 1 ? 1 : 0;
                }
                case ORDER_REJECTED, COMPENSATING -> {
                    // PostgreSQL never took this unit, so it is in PostgreSQL's available count and comes back with the
                    // recalibration: the pending compensation must find it already done, not add it a second time
                    projection.restoreHash(slot, rid, null, "COMPENSATED", k.userId(), k.requestId().toString(),
                            k.messageId().toString());
                    redis.sync().set(slot.compensationMarker(rid),
                            CompensationTaskRepository.taskId(k.reservationId()).toString());
                    absorbed++;
                }
                case RESERVED, COMPENSATED, MANUAL_REVIEW -> {
                    // a durable RESERVED row is a frozen one given back; COMPENSATED and MANUAL_REVIEW need nothing
                }
            }
        }
        for (SkuSlot slot : a.slots(sku)) {
            RECALIBRATE.run(redis, new String[] {slot.stock(), slot.counter(), slot.meta(), slot.transfers()},
                    Integer.toString(ActivityService.share(pg.available(), slot.bucket(), sku.buckets())),
                    Integer.toString(ActivityService.share(committed, slot.bucket(), sku.buckets())),
                    Long.toString(a.startsAt().toEpochMilli()), Long.toString(a.endsAt().toEpochMilli()), status);
        }
        Map<String, Object> after = Map.of("stock", pg.available(), "committed", committed, "open_reserved", 0,
                "initial", pg.initial(), "status", status, "hashes_restored", restored, "compensations_absorbed", absorbed);
        holds.audit(Reconciler.OPERATOR, "REDIS_RECALIBRATION", "SKU", activityId + ":" + sku.skuId(),
                Map.of("redis", "keys lost"), after, Map.of("pg", pg.toString()), "Redis lost the keys of a live SKU");
        meters.counter("reconcile.redis_recalibration").increment();
        log.warn("reconcile.redis_recalibrated activity_id={} sku_id={} after={}", activityId, sku.skuId(), after);
        return after.toString();
    }

    private int warmedSlots(long activityId, Activity.Sku sku) {
        int n = 0;
        for (SkuSlot slot : SkuSlot.all(activityId, sku.skuId(), sku.buckets())) {
            if (redis.sync().exists(slot.counter()) == 1) {
                n++;
            }
        }
        return n;
    }

    private SkuInventory pg(long activityId, long skuId) {
        return inventory.forActivity(activityId).stream().filter(i -> i.skuId() == skuId).findFirst()
                .orElseThrow(() -> new IllegalStateException("no inventory for " + activityId + "/" + skuId));
    }
}
