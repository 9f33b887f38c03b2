package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ReserveReplyTest {

    @Test
    @DisplayName("reserve.lua's six elements, by name: a new reservation with the master's clock and a landing")
    void reserved() {
        ReserveReply r = ReserveReply.of(List.of(1L, "RESERVED", "rid-1", "RESERVED", 1_700_000_000_123L, 1L));
        assertThat(r.code()).isEqualTo(ReserveReply.RESERVED);
        assertThat(r.reservationId()).isEqualTo("rid-1");
        assertThat(r.status()).isEqualTo("RESERVED");
        assertThat(r.nowMs()).isEqualTo(1_700_000_000_123L);
        assertThat(r.landed()).isTrue();
    }

    @Test
    @DisplayName("a refusal carries what it names: the buyer's reservation, or the slot's status; nothing landed")
    void refusals() {
        ReserveReply already = ReserveReply.of(Arrays.asList(-2L, "ALREADY_RESERVED", "rid-9", "PAID", 5L, 0L));
        assertThat(already.code()).isEqualTo(ReserveReply.ALREADY_RESERVED);
        assertThat(already.reservationId()).isEqualTo("rid-9");
        assertThat(already.status()).isEqualTo("PAID");
        assertThat(already.landed()).isFalse();
        ReserveReply paused = ReserveReply.of(Arrays.asList(-3L, "NOT_OPEN", null, "PAUSED", 5L, 0L));
        assertThat(paused.code()).isEqualTo(ReserveReply.NOT_OPEN);
        assertThat(paused.reservationId()).isNull();
        assertThat(paused.status()).isEqualTo("PAUSED");
    }
}
