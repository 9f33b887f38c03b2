package io.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class OutcomeTest {

    @Test
    @DisplayName("inbox result codes are exactly the closed set of SPEC 1a (besides PROCESSING) and round-trip")
    void closedSet() {
        Set<String> codes = new java.util.TreeSet<>();
        for (Outcome o : Outcome.values()) {
            if (o.inboxCode() != null) {
                codes.add(o.inboxCode());
                assertThat(Outcome.fromInboxCode(o.inboxCode())).isEqualTo(o);
            }
        }
        assertThat(codes).containsExactly("LATE_REJECTED", "ORDER_CREATED", "REJECTED_DUPLICATE_USER", "REJECTED_SOLD_OUT");
        assertThatThrownBy(() -> Outcome.fromInboxCode("PROCESSING")).isInstanceOf(IllegalArgumentException.class);
    }
}
