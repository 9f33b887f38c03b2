package io.seckill.order;

import io.seckill.state.OrderStatus;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/** An order as the payment and cancel paths see it. */
public record OrderRecord(
        UUID orderId,
        long activityId,
        long skuId,
        long userId,
        UUID reservationId,
        OrderStatus status,
        BigDecimal amount,
        Instant expiresAt,
        Instant paidAt,
        Instant cancelledAt,
        String cancelReason,
        int cancelAttempts) {}
