package io.seckill.reservation;

import io.seckill.api.Caller;
import io.seckill.api.Caller.Buyer;
import io.seckill.refusal.Refusal;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The buyer's API: reserve (answers QUEUED, never "order created") and query a reservation. */
@RestController
class ReservationController {

    private final ReserveCall reserve;
    private final ReservationQuery query;

    ReservationController(ReserveCall reserve, ReservationQuery query) {
        this.reserve = reserve;
        this.query = query;
    }

    @PostMapping("/api/v1/activities/{activityId}/skus/{skuId}/reservations")
    @Caller.OwnRateLimit
    ResponseEntity<ReserveCall.Accepted> reserve(
            Buyer buyer,
            @PathVariable long activityId,
            @PathVariable long skuId,
            @RequestBody(required = false) ReserveCall.Body body) {
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(reserve.answer(buyer.userId(), activityId, skuId, body));
    }

    @GetMapping("/api/v1/reservations/{reservationId}")
    ReservationQuery.StatusView get(
            Buyer buyer,
            @PathVariable String reservationId,
            @RequestParam(name = "activity_id", required = false) Long activityId,
            @RequestParam(name = "sku_id", required = false) Long skuId) {
        long userId = buyer.userId();
        ReservationQuery.Hint hint =
                activityId != null && skuId != null ? new ReservationQuery.Hint(activityId, skuId) : null;
        UUID id;
        try {
            id = UUID.fromString(reservationId);
        } catch (IllegalArgumentException e) {
            throw Refusal.invalid("reservation_id", "must be a UUID");
        }
        return query.find(userId, id, hint)
                .orElseThrow(() -> new Refusal(
                        Refusal.Kind.NOT_FOUND, "RESERVATION_NOT_FOUND", "no reservation " + id + " for this user"));
    }
}
