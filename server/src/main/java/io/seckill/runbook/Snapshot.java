package io.seckill.runbook;

import io.seckill.state.OrderStatus;
import io.seckill.state.ReservationStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** One reservation's state across PostgreSQL and Redis, before and after a manual action. */
public record Snapshot(
        ReservationStatus reservationStatus,
        long reservationVersion,
        long activityId,
        long skuId,
        long userId,
        UUID orderId,
        OrderStatus orderStatus,
        List<String> tasks,
        String redisStatus,
        boolean held) {

    /** The snapshot as the API, the audit log and the repair evidence show it. */
    Map<String, Object> toMap() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("reservation_status", reservationStatus.name());
        s.put("reservation_version", reservationVersion);
        s.put("activity_id", activityId);
        s.put("sku_id", skuId);
        s.put("user_id", userId);
        s.put("order_id", orderId == null ? null : orderId.toString());
        s.put("order_status", orderStatus == null ? null : orderStatus.name());
        s.put("tasks", tasks);
        s.put("redis_status", redisStatus);
        s.put("held", held);
        return s;
    }
}
