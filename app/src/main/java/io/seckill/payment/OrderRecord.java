package io.seckill.payment;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/** An order as the payment and cancel paths see it. */
public record OrderRecord(UUID orderId, long activityId, long skuId, long userId, UUID reservationId, String status,
        BigDecimal amount, Instant expiresAt, Instant paidAt, Instant cancelledAt, String cancelReason, int cancelAttempts) {
}
