package io.seckill.reconcile;

import io.seckill.redis.SkuSlot;
import io.seckill.reservation.Judged;
import io.seckill.state.ReservationStatus;
import java.util.Set;

/**
 * A rule over one reservation as PostgreSQL holds it ({@link Judged}) and the status of its Redis hash
 * (null when the hash is gone). The judgement is pure; the repair it asks for runs only through
 * {@link Repairs}, once per repair id.
 */
interface ReservationRule {

    /** The PostgreSQL statuses this rule judges; every status is judged by at most one rule. */
    Set<ReservationStatus> covers();

    Finding judge(Judged reservation, String redisStatus);

    /** Carries out {@code repair} (as this rule's {@link #judge} asked for it); returns what it did. */
    String repair(SkuSlot slot, Judged reservation, String redisStatus, Finding.Repair repair);
}
