package io.seckill.reservation;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.seckill.refusal.Refusal;
import io.seckill.state.PublicStatus;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * One buyer's reserve call as every entry answers it - the API's controller and the lean admission
 * entry alike: the rate limits, the request id, the reservation, and the accepted answer's body (a
 * 202 QUEUED, never "order created"); every other outcome is a {@link Refusal}.
 */
@Component
public record ReserveCall(ReservationService service, AdmissionLimiter limiter, OrderPace pace) {

    /** The JSON body of a reserve call. */
    public record Body(String requestId) {}

    /**
     * The accepted answer's body: QUEUED, the reservation, where to ask for it (the slot it lives in is
     * named, so the query reads one hash); {@code replayed} and the reservation's {@code state} only when
     * the request id had been answered before. A record rather than a map: both entries write it as JSON
     * on every admission, and a map's entries are written value by value, each looked up by its type.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Accepted(String code, String reservationId, String statusUrl, Boolean replayed, String state) {

        static Accepted queued(UUID reservationId, long activityId, long skuId, Boolean replayed, String state) {
            return new Accepted(
                    PublicStatus.QUEUED.name(),
                    reservationId.toString(),
                    "/api/v1/reservations/" + reservationId + "?activity_id=" + activityId + "&sku_id=" + skuId,
                    replayed,
                    state);
        }
    }

    /** The accepted answer; {@code body} is null when the request had none. */
    public Accepted answer(long userId, long activityId, long skuId, Body body) {
        if (!limiter.tryAcquire(userId)) {
            throw new Refusal(
                    Refusal.Kind.TOO_MANY,
                    "RATE_LIMITED",
                    "too many requests; retry in a second",
                    null,
                    Map.of("retry_after_seconds", 1));
        }
        if (body == null) {
            throw Refusal.invalid("body", "is required");
        }
        UUID requestId = parseRequestId(body.requestId());
        if (!pace.tryTake()) {
            throw new Refusal(
                    Refusal.Kind.TOO_MANY,
                    "RATE_LIMITED",
                    "new reservations wait for the order consumers to catch up; retry in a second",
                    null,
                    Map.of("retry_after_seconds", 1));
        }
        ReserveResult result = null;
        try {
            result = service.reserve(userId, activityId, skuId, requestId);
        } finally {
            pace.settle(result instanceof ReserveResult.Queued);
        }
        return switch (result) {
            case ReserveResult.Queued q -> Accepted.queued(q.reservationId(), activityId, skuId, null, null);
            case ReserveResult.Replayed r ->
                Accepted.queued(r.reservationId(), activityId, skuId, true, ReservationQuery.redisState(r.status()));
            case ReserveResult.SoldOut s -> throw new Refusal(Refusal.Kind.CONFLICT, "SOLD_OUT", "sold out");
            case ReserveResult.AlreadyReserved a ->
                throw new Refusal(
                        Refusal.Kind.CONFLICT,
                        "ALREADY_RESERVED",
                        "this user already holds reservation " + a.reservationId(),
                        null,
                        Map.of(
                                "reservation_id",
                                a.reservationId().toString(),
                                "state",
                                ReservationQuery.redisState(a.status())));
            // a recalibration of this SKU's counts (docs/RECONCILIATION.md): seconds, not a closed sale
            case ReserveResult.NotOpen n
            when "PAUSED".equals(n.saleStatus()) ->
                throw new Refusal(
                        Refusal.Kind.UNAVAILABLE,
                        "ADMISSION_PAUSED",
                        "this item's stock is being recounted; retry in a moment with the same request_id");
            case ReserveResult.NotOpen n ->
                throw new Refusal(
                        Refusal.Kind.CONFLICT, "ACTIVITY_NOT_OPEN", "the sale is not open (" + n.saleStatus() + ")");
        };
    }

    static UUID parseRequestId(String raw) {
        if (raw == null || raw.isBlank()) {
            throw Refusal.invalid("request_id", "is required");
        }
        if (raw.length() != 36) {
            throw Refusal.invalid("request_id", "must be a UUID");
        }
        try {
            return UUID.fromString(raw);
        } catch (IllegalArgumentException e) {
            throw Refusal.invalid("request_id", "must be a UUID");
        }
    }
}
