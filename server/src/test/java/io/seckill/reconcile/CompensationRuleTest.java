package io.seckill.reconcile;

import static io.seckill.reconcile.Reservations.withTask;
import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.anomaly.AnomalyKind;
import io.seckill.state.ReservationStatus;
import io.seckill.state.TaskStatus;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class CompensationRuleTest {

    private static Finding judge(ReservationStatus status, TaskStatus task, boolean leaseExpired, String redis) {
        return CompensationRule.judgement(withTask(status, task, leaseExpired), redis);
    }

    private static RepairKind repair(Finding f) {
        return f instanceof Finding.Repair r ? r.kind() : null;
    }

    @Test
    @DisplayName("a rejection or a compensation without its task gets one; with it, the worker's")
    void taskEnsured() {
        assertThat(repair(judge(ReservationStatus.ORDER_REJECTED, null, false, "RESERVED")))
                .isEqualTo(RepairKind.ENSURE_COMPENSATION_TASK);
        assertThat(repair(judge(ReservationStatus.COMPENSATING, null, false, "COMPENSATED")))
                .isEqualTo(RepairKind.ENSURE_COMPENSATION_TASK);
        assertThat(judge(ReservationStatus.ORDER_REJECTED, TaskStatus.PENDING, false, "RESERVED"))
                .isEqualTo(Finding.AGREES);
    }

    @Test
    @DisplayName("Redis compensated, the task idle or its lease expired: finished; a live claim is left alone")
    void finishedWhenIdle() {
        for (TaskStatus idle : new TaskStatus[] {TaskStatus.PENDING, TaskStatus.RETRY}) {
            assertThat(repair(judge(ReservationStatus.COMPENSATING, idle, false, "COMPENSATED")))
                    .isEqualTo(RepairKind.FINISH_COMPENSATION);
        }
        assertThat(repair(judge(ReservationStatus.COMPENSATING, TaskStatus.CLAIMED, true, "COMPENSATED")))
                .isEqualTo(RepairKind.FINISH_COMPENSATION);
        assertThat(judge(ReservationStatus.COMPENSATING, TaskStatus.CLAIMED, false, "COMPENSATED"))
                .isEqualTo(Finding.AGREES);
        assertThat(judge(ReservationStatus.COMPENSATING, TaskStatus.PENDING, false, "RESERVED"))
                .as("Redis not compensated yet: the worker's job, not a repair")
                .isEqualTo(Finding.AGREES);
    }

    @Test
    @DisplayName("compensated in PostgreSQL, the unit still held in Redis after a failover: compensate.lua again")
    void lostCompensationReapplied() {
        for (String held : new String[] {"RESERVED", "ORDER_REJECTED"}) {
            Finding f = judge(ReservationStatus.COMPENSATED, TaskStatus.APPLIED, false, held);
            assertThat(f)
                    .isEqualTo(new Finding.Repair(
                            RepairKind.REAPPLY_COMPENSATION,
                            "COMPENSATED",
                            "PostgreSQL says COMPENSATED, Redis still holds the unit (" + held + ")"));
        }
    }

    @Test
    @DisplayName(
            "compensated in PostgreSQL and anything else but a held unit in Redis is an anomaly; a lost hash is not")
    void otherwiseAnomaly() {
        assertThat(judge(ReservationStatus.COMPENSATED, TaskStatus.APPLIED, false, "PAID"))
                .isEqualTo(new Finding.Anomaly(AnomalyKind.COMPENSATED_BUT_REDIS_PAID, "COMPENSATED"));
        assertThat(judge(ReservationStatus.COMPENSATED, null, false, "RESERVED"))
                .as("no task to reapply under: a person decides")
                .isEqualTo(new Finding.Anomaly(AnomalyKind.COMPENSATED_BUT_REDIS_RESERVED, "COMPENSATED"));
        assertThat(judge(ReservationStatus.COMPENSATED, TaskStatus.APPLIED, false, "COMPENSATED"))
                .isEqualTo(Finding.AGREES);
        assertThat(judge(ReservationStatus.COMPENSATED, TaskStatus.APPLIED, false, null))
                .isEqualTo(Finding.AGREES);
    }
}
