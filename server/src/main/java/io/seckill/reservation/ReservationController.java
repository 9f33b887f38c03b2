package io.seckill.reservation;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.seckill.api.Caller.Buyer;
import io.seckill.refusal.Refusal;

/** The buyer's API: reserve (answers QUEUED, never "order created") and query a reservation. */
@RestController
class ReservationController {

    private final ReservationService service;
    private final ReservationQuery query;
    private final AdmissionLimiter limiter;

    ReservationController(ReservationService service, ReservationQuery query, AdmissionLimiter limiter) {
        this.service = service;
        this.query = query;
        this.limiter = limiter;
    }

    record ReserveRequest(String requestId) {
    }

    @PostMapping("/api/v1/activities/{activityId}/skus/{skuId}/reservations")
    ResponseEntity<Map<String, Object>> reserve(Buyer buyer, @PathVariable long activityId, @PathVariable long skuId, @RequestBody(required = false) ReserveRequest body) {
        long userId = buyer.userId();
        if (!limiter.tryAcquire(userId)) {
            throw new Refusal(Refusal.Kind.TOO_MANY, "RATE_LIMITED", "too many requests; retry in a second", null,
                    Map.of("retry_after_seconds", 1));
        }
        if (body == null) {
            throw Refusal.invalid("body", "is required");
        }
        UUID requestId = parseRequestId(body.requestId());
        ReserveResult result = service.reserve(userId, activityId, skuId, requestId);
        Map<String, Object> out = new LinkedHashMap<>();
        return switch (result) {
            case ReserveResult.Queued q -> {
                out.put("code", "QUEUED");
                out.put("reservation_id", q.reservationId().toString());
                out.put("status_url", statusUrl(q.reservationId(), activityId, skuId));
                yield ResponseEntity.status(HttpStatus.ACCEPTED).body(out);
            }
            case ReserveResult.Replayed r -> {
                out.put("code", "QUEUED");
                out.put("reservation_id", r.reservationId().toString());
                out.put("status_url", statusUrl(r.reservationId(), activityId, skuId));
                out.put("replayed", true);
                out.put("state", ReservationQuery.redisState(r.status()));
                yield ResponseEntity.status(HttpStatus.ACCEPTED).body(out);
            }
            case ReserveResult.SoldOut s -> throw new Refusal(Refusal.Kind.CONFLICT, "SOLD_OUT", "sold out");
            case ReserveResult.AlreadyReserved a -> throw new Refusal(Refusal.Kind.CONFLICT, "ALREADY_RESERVED",
                    "this user already holds reservation " + a.reservationId(), null,
                    Map.of("reservation_id", a.reservationId().toString(), "state", ReservationQuery.redisState(a.status())));
            case ReserveResult.NotOpen n -> throw new Refusal(Refusal.Kind.CONFLICT, "ACTIVITY_NOT_OPEN",
                    "the sale is not open (" + n.saleStatus() + ")");
        };
    }

    @GetMapping("/api/v1/reservations/{reservationId}")
    Map<String, Object> get(Buyer buyer, @PathVariable String reservationId, @RequestParam(name = "activity_id", required = false) Long activityId,
            @RequestParam(name = "sku_id", required = false) Long skuId) {
        long userId = buyer.userId();
        ReservationQuery.Hint hint = activityId != null && skuId != null ? new ReservationQuery.Hint(activityId, skuId) : null;
        UUID id;
        try {
            id = UUID.fromString(reservationId);
        } catch (IllegalArgumentException e) {
            throw Refusal.invalid("reservation_id", "must be a UUID");
        }
        return query.find(userId, id, hint).orElseThrow(() -> new Refusal(Refusal.Kind.NOT_FOUND, "RESERVATION_NOT_FOUND",
                "no reservation " + id + " for this user"));
    }

    /** Where to ask for the reservation's state: the slot it lives in is named, so the query reads one hash. */
    private static String statusUrl(UUID reservationId, long activityId, long skuId) {
        return "/api/v1/reservations/" + reservationId + "?activity_id=" + activityId + "&sku_id=" + skuId;
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
