package io.seckill.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.reconcile.DriftRule.Drift;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DriftRuleTest {

    private final AtomicInteger asked = new AtomicInteger();

    private LongSupplier counted(long value) {
        return () -> {
            asked.incrementAndGet();
            return value;
        };
    }

    private BooleanSupplier counted(boolean value) {
        return () -> {
            asked.incrementAndGet();
            return value;
        };
    }

    @Test
    @DisplayName("equal books are no drift, and nothing else is asked")
    void equalBooks() {
        assertThat(DriftRule.judgement(0, 0, false, counted(0L), 0, counted(0L), counted(true)))
                .isEqualTo(Drift.NONE);
        assertThat(asked).hasValue(0);
    }

    @Test
    @DisplayName("a difference with nothing in motion is a drift: committed first, then the supply")
    void quietDifference() {
        assertThat(DriftRule.judgement(1, 0, false, counted(0L), 0, counted(0L), counted(true)))
                .isEqualTo(Drift.CROSS_SYSTEM_DELTA);
        assertThat(DriftRule.judgement(-2, 1, false, counted(0L), 0, counted(0L), counted(true)))
                .isEqualTo(Drift.CROSS_SYSTEM_DELTA);
        assertThat(DriftRule.judgement(0, 1, false, counted(0L), 0, counted(0L), counted(true)))
                .isEqualTo(Drift.SUPPLY_DELTA);
    }

    @Test
    @DisplayName("a difference while anything that closes it is in motion is not a drift")
    void inMotion() {
        assertThat(DriftRule.judgement(1, 0, true, counted(0L), 0, counted(0L), counted(true)))
                .as("repaired this run")
                .isEqualTo(Drift.NONE);
        assertThat(DriftRule.judgement(1, 0, false, counted(3L), 0, counted(0L), counted(true)))
                .as("order events waiting in the outbox")
                .isEqualTo(Drift.NONE);
        assertThat(DriftRule.judgement(1, 0, false, counted(0L), 2, counted(0L), counted(true)))
                .as("reservations open in Redis that the pipeline will move")
                .isEqualTo(Drift.NONE);
        assertThat(DriftRule.judgement(1, 0, false, counted(0L), 0, counted(0L), counted(false)))
                .as("order events on the broker not yet projected (or the broker not answering)")
                .isEqualTo(Drift.NONE);
    }

    @Test
    @DisplayName("reservations a person holds stay open and do not hide a drift")
    void heldOpenDoesNotHide() {
        assertThat(DriftRule.judgement(0, 1, false, counted(0L), 2, counted(2L), counted(true)))
                .isEqualTo(Drift.SUPPLY_DELTA);
        assertThat(DriftRule.judgement(0, 1, false, counted(0L), 3, counted(2L), counted(true)))
                .as("one open that is not under review")
                .isEqualTo(Drift.NONE);
    }

    @Test
    @DisplayName("a repair this run settles it before the outbox or the broker is asked")
    void cheapestFirst() {
        DriftRule.judgement(1, 0, true, counted(0L), 0, counted(0L), counted(true));
        assertThat(asked).hasValue(0);
    }
}
