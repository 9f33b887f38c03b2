package io.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.seckill.state.InboxResult;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class MessageOutcomeTest {

    @Test
    @DisplayName("every inbox result a transaction decides has one outcome and round-trips; PROCESSING has none")
    void closedSet() {
        Set<InboxResult> results = EnumSet.noneOf(InboxResult.class);
        for (MessageOutcome o : MessageOutcome.values()) {
            if (o.inboxResult() != null) {
                assertThat(results.add(o.inboxResult()))
                        .as("one outcome per result")
                        .isTrue();
                assertThat(MessageOutcome.of(o.inboxResult())).isEqualTo(o);
            }
        }
        assertThat(results).isEqualTo(InboxResult.PROCESSING.next());
        assertThatThrownBy(() -> MessageOutcome.of(InboxResult.PROCESSING))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
