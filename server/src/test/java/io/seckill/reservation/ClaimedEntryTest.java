package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ClaimedEntryTest {

    @Test
    @DisplayName("claim_due.lua's flat list, eleven fields an entry, read by name; a gone reservation is MISSING")
    void decodesEachEntry() {
        UUID rid = UUID.randomUUID();
        UUID message = UUID.randomUUID();
        UUID request = UUID.randomUUID();
        List<Object> reply = new ArrayList<>(List.of(
                rid.toString(),
                "RESERVED",
                message.toString(),
                request.toString(),
                "42",
                "1001",
                "7",
                "1700000000000",
                "1700000300000",
                "2",
                "scanner-a"));
        reply.add("gone-rid");
        for (int i = 0; i < 10; i++) {
            reply.add("MISSING");
        }

        List<ClaimedEntry> entries = ClaimedEntry.all(reply);

        assertThat(entries).hasSize(2);
        ClaimedEntry first = entries.getFirst();
        assertThat(first.missing()).isFalse();
        assertThat(first.sendAttempts()).isEqualTo(2);
        assertThat(first.expiredOwner()).isEqualTo("scanner-a");
        OrderCreateRequested m = first.message();
        assertThat(m.messageId()).isEqualTo(message);
        assertThat(m.requestId()).isEqualTo(request);
        assertThat(m.reservationId()).isEqualTo(rid);
        assertThat(m.activityId()).isEqualTo(1001);
        assertThat(m.skuId()).isEqualTo(7);
        assertThat(m.userId()).isEqualTo(42);
        assertThat(entries.get(1).missing()).isTrue();
        assertThat(entries.get(1).reservationId()).isEqualTo("gone-rid");
    }

    @Test
    @DisplayName("a recovery field that cannot be read throws when the message is asked for (the caller sets it aside)")
    void unreadableFieldThrows() {
        List<Object> reply = List.of(
                UUID.randomUUID().toString(),
                "RESERVED",
                "not-a-uuid",
                UUID.randomUUID().toString(),
                "42",
                "1001",
                "7",
                "1",
                "2",
                "0",
                "");
        assertThatThrownBy(() -> ClaimedEntry.all(reply).getFirst().message())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
