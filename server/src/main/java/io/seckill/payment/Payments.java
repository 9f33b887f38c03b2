package io.seckill.payment;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.springframework.stereotype.Service;

/**
 * The payment feature's face to the others: what the runbook, the invariants and the demo's report read of payment
 * records and attempts, and the refund an operator starts. Its tables are reached only here and inside the feature.
 */
@Service
public class Payments {

    private final PaymentRepository repo;

    Payments(PaymentRepository repo) {
        this.repo = repo;
    }

    /** Payment records of a sale by state: SUCCESS (kept), REFUNDING, REFUNDED. */
    public Map<String, Long> paymentCounts(long activityId) {
        return repo.paymentCounts(activityId);
    }

    /** A sale's payments that must be refunded and are not yet. */
    public long unrefunded(long activityId) {
        return repo.unrefunded(activityId);
    }

    /** Those of {@code paymentIds} that have no payment record. */
    public Set<UUID> unrecorded(List<UUID> paymentIds) {
        return repo.unrecorded(paymentIds);
    }

    /** The reservations behind an id that may be a payment id (a UUID) or a channel transaction id. */
    public List<UUID> reservationsOf(String anyId, boolean uuid) {
        return repo.reservationsOf(anyId, uuid);
    }

    /** The reservation's payment records as stored, for an operator's evidence. */
    public List<Map<String, Object>> recordsOfReservation(UUID reservationId) {
        return repo.recordsOfReservation(reservationId);
    }

    /** The reservation's payment attempts as stored, for an operator's evidence. */
    public List<Map<String, Object>> attemptsOfReservation(UUID reservationId) {
        return repo.attemptsOfReservation(reservationId);
    }

    /** Starts the refund of a kept payment (once: false when it was started before). */
    public boolean startRefund(UUID paymentId, UUID refundId) {
        return repo.startRefund(paymentId, refundId);
    }
}
