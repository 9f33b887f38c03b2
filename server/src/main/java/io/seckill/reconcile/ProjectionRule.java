package io.seckill.reconcile;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.projection.OrderProjection;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.Judged;
import io.seckill.state.HashStatus;
import io.seckill.state.ObjectKind;
import io.seckill.state.ReservationStatus;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The order projection (DESIGN.md §13.5): a reservation with an order shows in Redis as the order's state. A hash
 * behind PostgreSQL is moved on by the projection's scripts; a hash Redis lost is restored (and the SKU's
 * recalibration made due, since its counters went with it); a hash the scripts cannot move is an anomaly, and
 * a paid order whose unit Redis released is also frozen for a person.
 */
@Component
class ProjectionRule implements ReservationRule {

    private static final Logger log = LoggerFactory.getLogger(ProjectionRule.class);
    /** A SKU one of whose reservation hashes Redis had lost while PostgreSQL holds its order: recalibration is due. */
    private final OrderProjection projection;

    private final Anomalies anomalies;
    private final MeterRegistry meters;

    ProjectionRule(OrderProjection projection, Anomalies anomalies, MeterRegistry meters) {
        this.projection = projection;
        this.anomalies = anomalies;
        this.meters = meters;
    }

    @Override
    public Set<ReservationStatus> covers() {
        return Set.of(ReservationStatus.ORDER_CREATED, ReservationStatus.CANCELLED);
    }

    @Override
    public Finding judge(Judged r, String actual) {
        return judgement(r, actual);
    }

    static Finding judgement(Judged r, String actual) {
        if (r.orderStatus() == null) {
            return new Finding.Anomaly(
                    AnomalyKind.RESERVATION_WITHOUT_ORDER, r.status().name());
        }
        String expected = r.status() == ReservationStatus.CANCELLED
                ? HashStatus.CANCELLED.name()
                : OrderProjection.redisStatus(r.orderStatus());
        if (expected.equals(actual)) {
            return Finding.AGREES;
        }
        if (HashStatus.PAID.name().equals(expected)
                && HashStatus.COMPENSATED.name().equals(actual)) {
            return new Finding.Anomaly(
                    AnomalyKind.PAID_BUT_REDIS_COMPENSATED,
                    expected,
                    "severe conflict: PG order PAID, Redis COMPENSATED");
        }
        if (!projectable(actual, expected)) {
            return new Finding.Anomaly(AnomalyKind.PROJECTION_CONFLICT, expected);
        }
        return new Finding.Repair(
                RepairKind.REBUILD_ORDER_PROJECTION,
                expected,
                "PostgreSQL says " + expected + ", Redis says " + actual);
    }

    /** The standard scripts can move {@code actual} to {@code expected}; a lost hash (null) can be restored. */
    static boolean projectable(String actual, String expected) {
        if (actual == null) {
            return true;
        }
        HashStatus from = HashStatus.lenient(actual);
        return from != null && from.canMoveTo(HashStatus.parse(expected));
    }

    @Override
    public String repair(SkuSlot slot, Judged r, String actual, Finding.Repair repair) {
        String rid = r.reservationId().toString();
        String order = r.orderId() == null ? null : r.orderId().toString();
        String expected = repair.target();
        if (actual == null) {
            // the hash went with writes Redis lost: whatever else went with it, the counters are settled at activity
            // level
            if (anomalies.record(
                    AnomalyKind.REDIS_RESERVATIONS_LOST,
                    ObjectKind.SKU,
                    slot.activityId() + ":" + slot.skuId(),
                    slot.activityId(),
                    slot.skuId(),
                    Map.of("first_reservation_id", rid, "pg_status", r.status().name()))) {
                meters.counter("reconcile.anomaly", "type", AnomalyKind.REDIS_RESERVATIONS_LOST.name())
                        .increment();
                log.error(
                        "reconcile.redis_reservations_lost activity_id={} sku_id={} reservation_id={}: a recalibration "
                                + "of the SKU is due",
                        slot.activityId(),
                        slot.skuId(),
                        rid);
            }
            List<Object> x = projection.restoreHash(
                    slot,
                    rid,
                    order,
                    expected,
                    r.userId(),
                    r.requestId().toString(),
                    r.messageId().toString());
            return "hash restored without counter moves: " + ScriptReply.of(x).word();
        }
        List<Object> x = projection.project(slot, rid, order, HashStatus.parse(expected));
        if (ScriptReply.of(x).code() < 0) {
            throw new IllegalStateException(
                    "projection refused: " + ScriptReply.of(x).word());
        }
        return ScriptReply.of(x).word();
    }
}
