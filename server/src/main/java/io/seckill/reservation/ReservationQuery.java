package io.seckill.reservation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.state.ReservationStatus;

/**
 * A buyer's view of one reservation: from the Redis projection, falling back to PostgreSQL when
 * the projection is missing, unreachable, or still says RESERVED after it should have moved.
 */
@Component
class ReservationQuery {

    private static final Logger log = LoggerFactory.getLogger(ReservationQuery.class);

    private final SaleRegistry registry;
    private final Redis redis;
    private final ReservationRepository reservations;
    private final long staleAfterMs;

    ReservationQuery(SaleRegistry registry, Redis redis, ReservationRepository reservations,
            SeckillProperties props) {
        this.registry = registry;
        this.redis = redis;
        this.reservations = reservations;
        this.staleAfterMs = props.reservation().projectionStaleAfter().toMillis();
    }

    /** Where the buyer says the reservation is (the status URL of the 202 answer carries it); null when not said. */
    record Hint(long activityId, long skuId) {
    }

    /** Empty when the reservation does not exist or belongs to someone else. */
    Optional<Map<String, Object>> find(long userId, UUID reservationId, Hint hint) {
        Map<String, String> projected = fromRedis(userId, reservationId, hint);
        if (!projected.isEmpty()) {
            if (!Long.toString(userId).equals(projected.get("user_id"))) {
                return Optional.empty();
            }
            boolean settled = !"RESERVED".equals(projected.get("status"));
            long age = System.currentTimeMillis() - Long.parseLong(projected.getOrDefault("reserved_at_ms", "0"));
            if (settled || age < staleAfterMs) {
                return Optional.of(view(reservationId, redisState(projected.get("status")), projected.get("order_id"),
                        orderStatus(projected.get("status")), null, "redis"));
            }
        }
        Optional<ReservationRepository.View> row = reservations.view(reservationId);
        if (row.isPresent()) {
            ReservationRepository.View v = row.get();
            if (v.userId() != userId) {
                return Optional.empty();
            }
            return Optional.of(view(reservationId, pgState(v.status()), v.orderId() == null ? null : v.orderId().toString(),
                    v.orderStatus() == null ? null : v.orderStatus().name(), v.reasonCode(), "postgres"));
        }
        if (!projected.isEmpty()) {
            return Optional.of(view(reservationId, "QUEUED", null, null, null, "redis"));
        }
        return Optional.empty();
    }

    /**
     * The reservation's Redis hash, read where it lives: the slot the buyer names, else the one
     * PostgreSQL knows (one indexed lookup), else - a reservation not yet in PostgreSQL and no hint -
     * every live SKU's slot in one pipelined round trip.
     */
    private Map<String, String> fromRedis(long userId, UUID reservationId, Hint hint) {
        try {
            SkuSlot slot = hint == null ? null : slot(hint.activityId(), hint.skuId(), userId);
            if (slot == null) {
                slot = reservations.target(reservationId)
                        .map(t -> slot(t.activityId(), t.skuId(), t.userId())).orElse(null);
            }
            if (slot != null) {
                return redis.sync().hgetall(slot.reservation(reservationId.toString()));
            }
            List<RedisFuture<Map<String, String>>> reads = new ArrayList<>();
            for (Activity a : registry.live()) {
                for (Activity.Sku sku : a.skus()) {
                    SkuSlot s = SkuSlot.forUser(a.activityId(), sku.skuId(), sku.buckets(), userId);
                    reads.add(redis.async().hgetall(s.reservation(reservationId.toString())));
                }
            }
            for (RedisFuture<Map<String, String>> f : reads) {
                Map<String, String> h = f.get(2, TimeUnit.SECONDS);
                if (!h.isEmpty()) {
                    return h;
                }
            }
        } catch (RedisException | ExecutionException | TimeoutException e) {
            log.warn("reservation.query_redis_failed reservation_id={} error_class={}", reservationId, e.getClass().getName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Map.of();
    }

    private SkuSlot slot(long activityId, long skuId, long userId) {
        return registry.find(activityId).map(a -> a.sku(skuId))
                .map(sku -> SkuSlot.forUser(activityId, skuId, sku.buckets(), userId)).orElse(null);
    }

    static String redisState(String status) {
        return switch (status) {
            case "RESERVED" -> "QUEUED";
            case "ORDER_CREATED", "PAID", "CANCEL_PENDING" -> "ORDER_CREATED";
            case "CANCELLED" -> "CANCELLED";
            case "MANUAL_REVIEW" -> "UNDER_REVIEW";
            default -> "REJECTED";
        };
    }

    private static String orderStatus(String redisStatus) {
        return switch (redisStatus) {
            case "ORDER_CREATED" -> "CREATED";
            case "PAID", "CANCEL_PENDING", "CANCELLED" -> redisStatus;
            default -> null;
        };
    }

    static String pgState(ReservationStatus status) {
        return switch (status) {
            case RESERVED -> "QUEUED";
            case ORDER_CREATED -> "ORDER_CREATED";
            case CANCELLED -> "CANCELLED";
            case MANUAL_REVIEW -> "UNDER_REVIEW";
            case ORDER_REJECTED, COMPENSATING, COMPENSATED -> "REJECTED";
        };
    }

    private static Map<String, Object> view(UUID id, String state, String orderId, String orderStatus, String reason,
            String source) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("reservation_id", id.toString());
        m.put("state", state);
        if (orderId != null) {
            m.put("order_id", orderId);
        }
        if (orderStatus != null) {
            m.put("order_status", orderStatus);
        }
        if (reason != null) {
            m.put("reason", reason);
        }
        m.put("source", source);
        return m;
    }
}
