package io.seckill.reconcile;

import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.reservation.Reservations;
import io.seckill.state.ReservationStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Index entries whose Redis reservation was gone (send_due orphans, deadline entries with no hash): once
 * PostgreSQL holds the reservation decided - its message did arrive - nothing was lost and the anomaly is
 * resolved; while PostgreSQL has no decision it stays open for a person, since the unit's recovery fields are
 * gone with the hash.
 */
@Component
class OrphanRule {

    private static final Logger log = LoggerFactory.getLogger(OrphanRule.class);

    private final Anomalies anomalies;
    private final Reservations reservations;
    private final Findings findings;

    OrphanRule(Anomalies anomalies, Reservations reservations, Findings findings) {
        this.anomalies = anomalies;
        this.reservations = reservations;
        this.findings = findings;
    }

    void apply(Tally tally) {
        List<Anomalies.Open> open =
                anomalies.open(List.of(AnomalyKind.SEND_DUE_ORPHAN, AnomalyKind.DEADLINE_RESERVATION_MISSING), 1000);
        if (open.isEmpty()) {
            return;
        }
        Map<Anomalies.Open, UUID> byAnomaly = new LinkedHashMap<>();
        for (Anomalies.Open a : open) {
            try {
                byAnomaly.put(a, UUID.fromString(a.objectId()));
            } catch (IllegalArgumentException e) {
                log.debug("reconcile.orphan_not_a_reservation object_id={}", a.objectId());
            }
        }
        Map<UUID, ReservationStatus> states = reservations.states(List.copyOf(byAnomaly.values()));
        byAnomaly.forEach((a, rid) -> {
            if (decided(states.get(rid))
                    && anomalies.resolve(a.anomalyId(), "PostgreSQL holds the reservation as " + states.get(rid))) {
                findings.repaired(tally, RepairKind.ORPHAN_RESOLVED.name());
            }
        });
    }

    /** PostgreSQL holds the reservation and has decided it: its message arrived, nothing was lost. */
    static boolean decided(ReservationStatus status) {
        return status != null && status != ReservationStatus.RESERVED;
    }
}
