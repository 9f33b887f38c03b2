package io.seckill.reservation;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.db.DbBreaker;
import io.seckill.redis.Redis;
import io.seckill.redis.RedisBreaker;
import io.seckill.redis.SkuSlot;
import io.seckill.refusal.Refusal;
import io.seckill.state.HashStatus;
import io.seckill.state.OrderStatus;
import io.seckill.state.PublicStatus;
import io.seckill.state.ReservationStatus;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * A buyer's view of one reservation: from the Redis projection, falling back to PostgreSQL when
 * the projection is missing, unreachable, or still says RESERVED after it should have moved.
 *
 * <p>PostgreSQL is asked at most {@code seckill.reservation.status-db-reads-per-second} times a second
 * by this instance. Buyers poll their reservation while the order pipeline is behind, which is when every
 * RESERVED projection is past its staleness and PostgreSQL is busiest creating the orders they wait
 * for; and a buyer polling made-up ids would make each poll a lookup. Past the budget a reservation
 * the projection holds is answered from it ({@code QUEUED}: the projection moves when the order is
 * made), and one it does not hold is answered {@code 503 BUSY} with a retry hint - absent from Redis
 * is not absent, so it is never a 404 that PostgreSQL has not confirmed. Reads and skips are counted in
 * {@code reservation_status_db_reads_total{result}}. While PostgreSQL does not answer, its reads are
 * refused at once ({@link DbBreaker}) and answered the same way; while Redis does not answer
 * ({@link RedisBreaker}), PostgreSQL is asked.
 */
@Component
class ReservationQuery {

    private static final Logger log = LoggerFactory.getLogger(ReservationQuery.class);

    private final SaleRegistry registry;
    private final Redis redis;
    private final RedisBreaker redisCalls;
    private final ReservationRepository reservations;
    private final StatusReads postgres;
    private final long staleAfterMs;
    private final Clock clock;

    ReservationQuery(
            SaleRegistry registry,
            Redis redis,
            RedisBreaker redisCalls,
            ReservationRepository reservations,
            StatusReads postgres,
            SeckillProperties props,
            Clock clock) {
        this.clock = clock;
        this.registry = registry;
        this.redis = redis;
        this.redisCalls = redisCalls;
        this.reservations = reservations;
        this.postgres = postgres;
        this.staleAfterMs = props.reservation().projectionStaleAfter().toMillis();
    }

    /** Where the buyer says the reservation is (the status URL of the 202 answer carries it); null when not said. */
    record Hint(long activityId, long skuId) {}

    /**
     * What a buyer's status poll answers ({@code GET /api/v1/reservations/{id}}): the state in the buyers' words
     * ({@code QUEUED}, {@code ORDER_CREATED}, ...), the order once there is one, the reason of a rejection, and
     * where the answer was read ({@code redis} or {@code postgres}). Absent fields are left out of the JSON.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record StatusView(
            String reservationId, String state, String orderId, String orderStatus, String reason, String source) {}

    /** Empty when the reservation does not exist or belongs to someone else. */
    Optional<StatusView> find(long userId, UUID reservationId, Hint hint) {
        SkuSlot slot = hint == null ? null : slot(hint.activityId(), hint.skuId(), userId);
        // without the buyer's hint PostgreSQL knows the slot (one indexed lookup), once the order pipeline has the
        // reservation
        boolean pgHasNone = false;
        if (slot == null && postgres.permit()) {
            StatusReads.Pg<Reservations.Target> target =
                    postgres.read(() -> reservations.target(reservationId), reservationId);
            pgHasNone = target.none();
            slot = target.value()
                    .map(t -> slot(t.activityId(), t.skuId(), t.userId()))
                    .orElse(null);
        }
        Map<String, String> projected = fromRedis(userId, reservationId, slot);
        if (!projected.isEmpty()) {
            if (!Long.toString(userId).equals(projected.get("user_id"))) {
                return Optional.empty();
            }
            boolean settled = HashStatus.parse(projected.get("status")) != HashStatus.RESERVED;
            // the JVM's clock against the master's: a skew moves when a projection counts as stale by as much
            long age = clock.millis() - Long.parseLong(projected.getOrDefault("reserved_at_ms", "0"));
            // a stale projection is checked against PostgreSQL, unless PostgreSQL was just asked, or is over its budget
            if (settled || age < staleAfterMs || pgHasNone || !postgres.permit()) {
                return Optional.of(projection(reservationId, projected));
            }
        } else if (pgHasNone) {
            return Optional.empty();
        } else if (!postgres.permit()) {
            throw busy("reservation lookups are over this instance's database budget; retry in a second");
        }
        StatusReads.Pg<ReservationRepository.View> row =
                postgres.read(() -> reservations.view(reservationId), reservationId);
        if (row.value().isPresent()) {
            ReservationRepository.View v = row.value().get();
            if (v.userId() != userId) {
                return Optional.empty();
            }
            return Optional.of(new StatusView(
                    reservationId.toString(),
                    pgState(v.status()),
                    v.orderId() == null ? null : v.orderId().toString(),
                    v.orderStatus() == null ? null : v.orderStatus().name(),
                    v.reasonCode(),
                    "postgres"));
        }
        if (!projected.isEmpty()) {
            return Optional.of(projection(reservationId, projected));
        }
        if (!row.answered()) {
            throw busy("the reservation is not in Redis and PostgreSQL is not answering; retry in a second");
        }
        return Optional.empty();
    }

    private static Refusal busy(String detail) {
        return new Refusal(Refusal.Kind.UNAVAILABLE, "BUSY", detail, null, Map.of("retry_after_seconds", 1));
    }

    private static StatusView projection(UUID reservationId, Map<String, String> projected) {
        return new StatusView(
                reservationId.toString(),
                redisState(projected.get("status")),
                projected.get("order_id"),
                orderStatus(projected.get("status")),
                null,
                "redis");
    }

    /**
     * The reservation's Redis hash, read where it lives: the slot known, else - a reservation not yet
     * in PostgreSQL and no hint - every live SKU's slot in one pipelined round trip.
     */
    private Map<String, String> fromRedis(long userId, UUID reservationId, SkuSlot known) {
        try {
            if (known != null) {
                String key = known.reservation(reservationId.toString());
                return redisCalls.call(key, () -> redis.sync().hgetall(key));
            }
            return redisCalls.callAcross(() -> everyLiveSlot(userId, reservationId));
        } catch (RedisException e) {
            log.warn(
                    "reservation.query_redis_failed reservation_id={} error_class={}",
                    reservationId,
                    e.getClass().getName());
            return Map.of();
        }
    }

    private Map<String, String> everyLiveSlot(long userId, UUID reservationId) {
        List<RedisFuture<Map<String, String>>> reads = new ArrayList<>();
        for (Activity a : registry.live()) {
            for (Activity.Sku sku : a.skus()) {
                SkuSlot s = SkuSlot.forUser(a.activityId(), sku.skuId(), sku.buckets(), userId);
                reads.add(redis.async().hgetall(s.reservation(reservationId.toString())));
            }
        }
        try {
            for (RedisFuture<Map<String, String>> f : reads) {
                Map<String, String> h = f.get(2, TimeUnit.SECONDS);
                if (!h.isEmpty()) {
                    return h;
                }
            }
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RedisException re ? re : new RedisException(e.getCause());
        } catch (TimeoutException e) {
            throw new RedisCommandTimeoutException("the live slots were not read within 2 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisException("interrupted while the live slots were read");
        }
        return Map.of();
    }

    private SkuSlot slot(long activityId, long skuId, long userId) {
        return registry.find(activityId)
                .map(a -> a.sku(skuId))
                .map(sku -> SkuSlot.forUser(activityId, skuId, sku.buckets(), userId))
                .orElse(null);
    }

    /** What a buyer sees for a hash whose status is {@code status} ({@link HashStatus#shown}). */
    static String redisState(String status) {
        return HashStatus.parse(status).shown().name();
    }

    /** The order's status a hash implies, as the order table names it; null when the hash has no order. */
    private static String orderStatus(String redisStatus) {
        return switch (HashStatus.parse(redisStatus)) {
            case ORDER_CREATED -> OrderStatus.CREATED.name();
            case PAID -> OrderStatus.PAID.name();
            case CANCEL_PENDING -> OrderStatus.CANCEL_PENDING.name();
            case CANCELLED -> OrderStatus.CANCELLED.name();
            default -> null;
        };
    }

    static String pgState(ReservationStatus status) {
        return PublicStatus.of(status).name();
    }
}
