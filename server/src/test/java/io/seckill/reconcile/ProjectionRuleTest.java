package io.seckill.reconcile;

import static io.seckill.reconcile.Reservations.withOrder;
import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.anomaly.AnomalyKind;
import io.seckill.state.OrderStatus;
import io.seckill.state.ReservationStatus;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ProjectionRuleTest {

    private static Finding judge(ReservationStatus status, OrderStatus order, String redis) {
        return ProjectionRule.judgement(withOrder(status, order), redis);
    }

    @Test
    @DisplayName("a hash that shows the order's state agrees; unpaid orders show as ORDER_CREATED")
    void agrees() {
        assertThat(judge(ReservationStatus.ORDER_CREATED, OrderStatus.CREATED, "ORDER_CREATED"))
                .isEqualTo(Finding.AGREES);
        assertThat(judge(ReservationStatus.ORDER_CREATED, OrderStatus.PAYING, "ORDER_CREATED"))
                .isEqualTo(Finding.AGREES);
        assertThat(judge(ReservationStatus.ORDER_CREATED, OrderStatus.PAID, "PAID"))
                .isEqualTo(Finding.AGREES);
        assertThat(judge(ReservationStatus.CANCELLED, OrderStatus.CANCELLED, "CANCELLED"))
                .isEqualTo(Finding.AGREES);
    }

    @Test
    @DisplayName("a hash behind PostgreSQL, or lost, is rebuilt to the order's state")
    void behindIsRebuilt() {
        assertThat(judge(ReservationStatus.ORDER_CREATED, OrderStatus.CREATED, "RESERVED"))
                .isEqualTo(new Finding.Repair(
                        RepairKind.REBUILD_ORDER_PROJECTION,
                        "ORDER_CREATED",
                        "PostgreSQL says ORDER_CREATED, Redis says RESERVED"));
        assertThat(judge(ReservationStatus.ORDER_CREATED, OrderStatus.PAID, "ORDER_CREATED"))
                .isEqualTo(new Finding.Repair(
                        RepairKind.REBUILD_ORDER_PROJECTION, "PAID", "PostgreSQL says PAID, Redis says ORDER_CREATED"));
        assertThat(judge(ReservationStatus.CANCELLED, OrderStatus.CANCELLED, "CANCEL_PENDING"))
                .isInstanceOfSatisfying(
                        Finding.Repair.class, r -> assertThat(r.target()).isEqualTo("CANCELLED"));
        assertThat(judge(ReservationStatus.ORDER_CREATED, OrderStatus.CANCEL_PENDING, null))
                .isInstanceOfSatisfying(
                        Finding.Repair.class, r -> assertThat(r.target()).isEqualTo("CANCEL_PENDING"));
    }

    @Test
    @DisplayName("a paid order whose unit Redis released is an anomaly and a hold, never a rebuild")
    void paidButCompensated() {
        Finding f = judge(ReservationStatus.ORDER_CREATED, OrderStatus.PAID, "COMPENSATED");
        assertThat(f).isInstanceOfSatisfying(Finding.Anomaly.class, a -> {
            assertThat(a.kind()).isEqualTo(AnomalyKind.PAID_BUT_REDIS_COMPENSATED);
            assertThat(a.holdReason()).isNotBlank();
        });
    }

    @Test
    @DisplayName("a hash the scripts cannot move back is a projection conflict for a person")
    void conflicts() {
        assertThat(judge(ReservationStatus.ORDER_CREATED, OrderStatus.CREATED, "PAID"))
                .isEqualTo(new Finding.Anomaly(AnomalyKind.PROJECTION_CONFLICT, "ORDER_CREATED"));
        assertThat(judge(ReservationStatus.ORDER_CREATED, OrderStatus.CREATED, "CANCEL_PENDING"))
                .isEqualTo(new Finding.Anomaly(AnomalyKind.PROJECTION_CONFLICT, "ORDER_CREATED"));
        assertThat(judge(ReservationStatus.CANCELLED, OrderStatus.CANCELLED, "PAID"))
                .isEqualTo(new Finding.Anomaly(AnomalyKind.PROJECTION_CONFLICT, "CANCELLED"));
        assertThat(judge(ReservationStatus.ORDER_CREATED, OrderStatus.PAID, "CANCELLED"))
                .isEqualTo(new Finding.Anomaly(AnomalyKind.PROJECTION_CONFLICT, "PAID"));
    }

    @Test
    @DisplayName("a reservation that says it has an order and has none is an anomaly whatever Redis says")
    void withoutOrder() {
        assertThat(judge(ReservationStatus.ORDER_CREATED, null, "ORDER_CREATED"))
                .isEqualTo(new Finding.Anomaly(AnomalyKind.RESERVATION_WITHOUT_ORDER, "ORDER_CREATED"));
    }
}
