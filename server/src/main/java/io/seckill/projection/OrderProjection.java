package io.seckill.projection;

import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.state.HashStatus;
import io.seckill.state.OrderStatus;
import java.time.Clock;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * The standard ways an order's state reaches the Redis reservation hash, each one idempotent Lua
 * call: used by the projection consumer for events and by reconciliation to rebuild a projection
 * that fell behind (DESIGN.md §11.5) - the same scripts, never a hand-written counter move.
 */
@Component
public class OrderProjection {

    private static final LuaScript PROJECT_ORDER_CREATED = LuaScript.load("project_order_created");
    private static final LuaScript PROJECT_ORDER_STATUS = LuaScript.load("project_order_status");
    private static final LuaScript RELEASE_ON_CANCEL = LuaScript.load("release_on_cancel");
    private static final LuaScript RESTORE_HASH = LuaScript.load("restore_reservation_hash");
    private final Redis redis;
    private final SaleRegistry registry;
    private final Clock clock;

    OrderProjection(Redis redis, SaleRegistry registry, Clock clock) {
        this.redis = redis;
        this.registry = registry;
        this.clock = clock;
    }

    /** How long a terminal hash of the slot's sale is kept, in ms ({@link Activity#terminalKeyTtl}). */
    private String terminalTtlMs(SkuSlot slot) {
        return Long.toString(registry.find(slot.activityId())
                .map(a -> a.terminalKeyTtl(clock.instant()))
                .orElse(Activity.JUDGED_AFTER_LAST_DEADLINE)
                .toMillis());
    }

    /** The reservation hash status that mirrors an order status (DESIGN.md, States): an unpaid order is ORDER_CREATED. */
    public static String redisStatus(OrderStatus orderStatus) {
        return HashStatus.ofOrder(orderStatus).name();
    }

    /**
     * Moves the reservation hash to {@code target}, the hash status of an order's state (ORDER_CREATED,
     * CANCEL_PENDING, PAID, CANCELLED); any other target is refused.
     */
    public List<Object> project(SkuSlot slot, String reservationId, String orderId, HashStatus target) {
        String hash = slot.reservation(reservationId);
        return switch (target) {
            case ORDER_CREATED ->
                PROJECT_ORDER_CREATED.run(redis, new String[] {hash, slot.counter()}, reservationId, orderId);
            case CANCEL_PENDING, PAID ->
                PROJECT_ORDER_STATUS.run(
                        redis, new String[] {hash, slot.counter()}, reservationId, orderId, target.name());
            case CANCELLED ->
                RELEASE_ON_CANCEL.run(
                        redis,
                        new String[] {hash, slot.stock(), slot.counter(), slot.releaseMarker(reservationId)},
                        reservationId,
                        orderId,
                        "release:" + orderId,
                        terminalTtlMs(slot));
            case RESERVED, ORDER_REJECTED, COMPENSATING, COMPENSATED, MANUAL_REVIEW ->
                throw new IllegalArgumentException("no projection of an order to " + target);
        };
    }

    /** Re-creates a lost reservation hash (and the buyer's mark) without touching any counter. */
    public List<Object> restoreHash(
            SkuSlot slot,
            String reservationId,
            String orderId,
            String status,
            long userId,
            String requestId,
            String messageId) {
        return RESTORE_HASH.run(
                redis,
                new String[] {slot.reservation(reservationId), slot.user(userId)},
                reservationId,
                orderId == null ? "" : orderId,
                status,
                Long.toString(userId),
                Long.toString(slot.activityId()),
                Long.toString(slot.skuId()),
                requestId,
                messageId,
                terminalTtlMs(slot));
    }
}
