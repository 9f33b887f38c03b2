package io.seckill.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.state.ReservationStatus;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ReservationRulesTest {

    @Test
    @DisplayName(
            "every PostgreSQL status is judged by one rule, but RESERVED (the sweeper's) and MANUAL_REVIEW (a person's)")
    void everyStatusHasItsRule() {
        Set<ReservationStatus> projection = new ProjectionRule(null, null, null).covers();
        Set<ReservationStatus> compensation = new CompensationRule(null, null).covers();
        assertThat(projection).doesNotContainAnyElementsOf(compensation);
        Set<ReservationStatus> judged = EnumSet.copyOf(projection);
        judged.addAll(compensation);
        assertThat(EnumSet.complementOf(EnumSet.copyOf(judged)))
                .containsExactlyInAnyOrder(ReservationStatus.RESERVED, ReservationStatus.MANUAL_REVIEW);
    }

    @Test
    @DisplayName("a status whose PostgreSQL row is decided resolves an orphan anomaly; RESERVED or absent does not")
    void orphanDecided() {
        assertThat(OrphanRule.decided(ReservationStatus.ORDER_CREATED)).isTrue();
        assertThat(OrphanRule.decided(ReservationStatus.COMPENSATED)).isTrue();
        assertThat(OrphanRule.decided(ReservationStatus.RESERVED)).isFalse();
        assertThat(OrphanRule.decided(null)).isFalse();
    }
}
