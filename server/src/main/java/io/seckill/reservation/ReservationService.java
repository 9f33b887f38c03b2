package io.seckill.reservation;

import io.lettuce.core.RedisException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.metrics.LogContext;
import io.seckill.metrics.LogThrottle;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.RedisBreaker;
import io.seckill.redis.SkuSlot;
import io.seckill.refusal.Refusal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Service;

/**
 * Admission (DESIGN.md §7.2, §9.1): one Lua call reserves stock, writes the reservation with every
 * recovery field, the send_due entry, the request map and the user mark; then the order message
 * is sent without holding up the answer. Redis errors refuse the sale (fail closed).
 */
@Service
public record ReservationService(
        SaleRegistry registry,
        ReservationIds ids,
        Redis redis,
        RedisBreaker redisCalls,
        OrderRequestSender sender,
        BucketTransfers transfers,
        SeckillProperties.Reservation config,
        AdmissionBreaker breaker,
        SoldOutMemo soldOutMemo,
        MeterRegistry meters,
        Counter created,
        LogThrottle redisFailures) {

    private static final Logger log = LoggerFactory.getLogger(ReservationService.class);
    private static final LuaScript RESERVE = LuaScript.load("reserve");

    @Autowired
    ReservationService(
            SaleRegistry registry,
            ReservationIds ids,
            Redis redis,
            RedisBreaker redisCalls,
            OrderRequestSender sender,
            BucketTransfers transfers,
            SeckillProperties props,
            MeterRegistry meters,
            AdmissionBreaker breaker,
            SoldOutMemo soldOutMemo) {
        // reservation_admitted_total: the design's reservation_created_total cannot exist, the Prometheus
        // client reserves the "_created" suffix (OpenMetrics counter timestamps)
        this(
                registry,
                ids,
                redis,
                redisCalls,
                sender,
                transfers,
                props.reservation(),
                breaker,
                soldOutMemo,
                meters,
                Counter.builder("reservation.admitted")
                        .description("Reservations admitted by Redis (DESIGN.md §12.2 reservation_created_total)")
                        .register(meters),
                new LogThrottle(Duration.ofSeconds(1)));
    }

    public ReserveResult reserve(long userId, long activityId, long skuId, UUID requestId) {
        Activity activity = registry.find(activityId)
                .orElseThrow(() -> new Refusal(
                        Refusal.Kind.NOT_FOUND,
                        "ACTIVITY_NOT_FOUND",
                        "no activity " + activityId,
                        "activity_id",
                        Map.of()));
        Activity.Sku sku = activity.sku(skuId);
        if (sku == null) {
            throw new Refusal(
                    Refusal.Kind.NOT_FOUND,
                    "ACTIVITY_NOT_FOUND",
                    "activity " + activityId + " has no sku " + skuId,
                    "sku_id",
                    Map.of());
        }
        AdmissionBreaker.Cause paused = breaker.cause();
        if (paused != null) {
            meters.counter("reservation.refused", "reason", "admission_paused").increment();
            throw new Refusal(Refusal.Kind.UNAVAILABLE, "ADMISSION_PAUSED", paused.detail());
        }
        SkuSlot slot = SkuSlot.forUser(activityId, skuId, sku.buckets(), userId);
        int version = ids.currentVersion();
        UUID reservationId = ids.reservationId(version, activityId, skuId, userId, requestId);
        UUID messageId = ids.messageId(version, reservationId);

        List<String> keys = new ArrayList<>(List.of(
                slot.stock(),
                slot.counter(),
                slot.meta(),
                slot.request(userId, requestId.toString()),
                slot.user(userId),
                slot.sendDue(),
                slot.deadlines(),
                slot.reservation(reservationId.toString())));
        List<UUID> ownIds = new ArrayList<>(2);
        ownIds.add(reservationId);
        for (int older : ids.versions()) {
            if (older != version) {
                UUID earlier = ids.reservationId(older, activityId, skuId, userId, requestId);
                ownIds.add(earlier);
                keys.add(slot.reservation(earlier.toString()));
            }
        }
        // sold out, from memory - unless this request made one of the SKU's reservations: a retry is replayed
        boolean soldOut = soldOutMemo.answersSoldOut(activityId, skuId, ownIds);
        if (soldOut) {
            return new ReserveResult.SoldOut();
        }
        try (LogContext logIds = LogContext.of(
                "activity_id",
                activityId,
                "sku_id",
                skuId,
                "user_id",
                userId,
                "request_id",
                requestId,
                "reservation_id",
                reservationId,
                "message_id",
                messageId)) {
            return admit(activity, slot, keys, userId, activityId, skuId, requestId, version, reservationId, messageId);
        }
    }

    private ReserveResult admit(
            Activity activity,
            SkuSlot slot,
            List<String> keys,
            long userId,
            long activityId,
            long skuId,
            UUID requestId,
            int version,
            UUID reservationId,
            UUID messageId) {
        List<String> args = List.of(
                reservationId.toString(),
                messageId.toString(),
                requestId.toString(),
                Long.toString(userId),
                Long.toString(activityId),
                Long.toString(skuId),
                Integer.toString(version),
                Long.toString(config.sendGrace().toMillis()),
                Long.toString(activity.businessDeadlineSeconds() * 1000L),
                Long.toString(config.requestMapTtl().toMillis()),
                Long.toString(soldOutMemo.holdMillis()));
        ReserveReply answer;
        try {
            answer = ReserveReply.of(redisCalls.call(
                    keys.getFirst(),
                    () -> RESERVE.run(redis, keys.toArray(String[]::new), args.toArray(String[]::new))));
            if (answer.code() == ReserveReply.EMPTY && slot.buckets() > 1) {
                answer = fallThrough(slot, keys, args, answer);
            }
        } catch (RedisException e) {
            throw redisUnavailable(e, activityId, skuId, userId, requestId);
        }
        String rid = answer.reservationId();
        String status = answer.status();
        return switch ((int) answer.code()) {
            case ReserveReply.RESERVED -> {
                created.increment();
                long nowMs = answer.nowMs();
                OrderCreateRequested msg = OrderCreateRequested.of(
                        messageId,
                        requestId,
                        reservationId,
                        activityId,
                        skuId,
                        userId,
                        nowMs,
                        nowMs + activity.businessDeadlineSeconds() * 1000L);
                log.debug(
                        "reservation.created activity_id={} sku_id={} user_id={} request_id={} reservation_id={} message_id={}",
                        activityId,
                        skuId,
                        userId,
                        requestId,
                        reservationId,
                        messageId);
                Failpoints.hit(Failpoint.AFTER_REDIS_RESERVE);
                sender.send(msg, slot);
                yield new ReserveResult.Queued(reservationId);
            }
            case ReserveReply.REPLAYED -> new ReserveResult.Replayed(UUID.fromString(rid), status);
            case ReserveReply.EMPTY -> {
                // every bucket answered (the fall-through asked the others): the SKU is empty as of now, unless units
                // are on their way back (held after a return)
                if (answer.returning()) {
                    meters.counter("reservation.refused", "reason", "units_returning")
                            .increment();
                } else {
                    soldOutMemo.rememberSoldOut(activityId, skuId, slot.buckets());
                }
                yield new ReserveResult.SoldOut();
            }
            case ReserveReply.ALREADY_RESERVED -> new ReserveResult.AlreadyReserved(UUID.fromString(rid), status);
            case ReserveReply.NOT_OPEN, ReserveReply.NOT_WARMED -> {
                if ("PAUSED".equals(status)) {
                    meters.counter("reservation.refused", "reason", "sku_paused")
                            .increment();
                }
                yield new ReserveResult.NotOpen(status == null || status.isEmpty() ? "NOT_WARMED" : status);
            }
            default -> throw new IllegalStateException("reserve.lua returned unknown code " + answer);
        };
    }

    /** A Redis call of admission that failed: counted, logged at most once a second, answered 503 (fail closed). */
    private Refusal redisUnavailable(RedisException e, long activityId, long skuId, long userId, UUID requestId) {
        // every refusal is counted; during an outage one line a second says so (not a stack trace per buyer)
        meters.counter("reservation.refused", "reason", "redis_unavailable").increment();
        long suppressed = redisFailures.tryAcquire();
        if (suppressed >= 0) {
            log.warn(
                    "reservation.redis_failed activity_id={} sku_id={} user_id={} request_id={} error_class={} "
                            + "suppressed_since_last={}: {}",
                    activityId,
                    skuId,
                    userId,
                    requestId,
                    e.getClass().getName(),
                    suppressed,
                    e.getMessage());
        }
        // a call that timed out may still run once Redis answers: a retry with the same request_id finds it
        return new Refusal(
                Refusal.Kind.UNAVAILABLE,
                "ADMISSION_PAUSED",
                "admission is unavailable; retry later with "
                        + "the same request_id, which answers the reservation this attempt may have made");
    }

    /**
     * The buyer's home bucket is empty: the other buckets, from the next one round, are asked for a unit;
     * the first that gives one has it transferred to the home bucket, where the same reservation is made
     * (the one-attempt mark stays in the home bucket). {@code SOLD_OUT} only when every bucket answered and
     * none had a unit. Each call goes through the breaker of the master that serves it: a hung master
     * holding another bucket is charged for its own silence, and the next bucket is asked instead.
     */
    private ReserveReply fallThrough(SkuSlot home, List<String> keys, List<String> args, ReserveReply soldOut) {
        RedisException silent = null;
        for (int i = 1; i < home.buckets(); i++) {
            SkuSlot source = home.sibling((home.bucket() + i) % home.buckets());
            String transferId;
            try {
                transferId = redisCalls.call(source.stock(), () -> transfers.takeOne(source, home));
            } catch (RedisException e) {
                // this bucket's master does not answer now: another bucket may still have a unit
                silent = e;
                continue;
            }
            if (transferId == null) {
                continue;
            }
            Failpoints.hit(Failpoint.AFTER_BUCKET_TRANSFER_OUT);
            List<String> withMarker = new ArrayList<>(keys);
            withMarker.add(home.transferMarker(transferId));
            List<String> withTransfer = new ArrayList<>(args);
            withTransfer.add(transferId);
            withTransfer.add(Long.toString(transfers.markerTtlMillis()));
            ReserveReply reply = ReserveReply.of(redisCalls.call(
                    home.stock(),
                    () -> RESERVE.run(redis, withMarker.toArray(String[]::new), withTransfer.toArray(String[]::new))));
            if (reply.landed()) {
                transfers.landed(source, transferId);
            }
            return reply;
        }
        if (silent != null) {
            // a bucket that did not answer may hold the unit: not sold out, but not answerable now either
            throw silent;
        }
        return soldOut;
    }
}
