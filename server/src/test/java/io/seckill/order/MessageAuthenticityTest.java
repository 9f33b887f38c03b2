package io.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.reservation.OrderCreateRequested;
import io.seckill.reservation.ReservationIds;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class MessageAuthenticityTest {

    private static final String V1 = "id-key-version-1-0123456789abcdef0123456789";
    private static final String V2 = "id-key-version-2-0123456789abcdef0123456789";

    private static OrderCreateRequested made(ReservationIds ids, int version, long userId) {
        UUID request = UUID.randomUUID();
        UUID rid = ids.reservationId(version, 5, 1, userId, request);
        return OrderCreateRequested.of(ids.messageId(version, rid), request, rid, 5, 1, userId, 1_000, 2_000);
    }

    @Test
    @DisplayName("a message is the engine's when its reservation and message ids are the HMACs of its request under a "
            + "retained key: the current or an older one; any changed id, user, SKU or sale, or another key, is not")
    void authenticity() {
        ReservationIds engine = new ReservationIds(Map.of(1, V1, 2, V2));
        OrderCreateRequested current = made(engine, 2, 7);
        assertThat(OrderConsumer.authentic(engine, current)).isTrue();
        assertThat(OrderConsumer.authentic(engine, made(engine, 1, 7)))
                .as("made before a key rotation")
                .isTrue();
        OrderCreateRequested otherUser = OrderCreateRequested.of(
                current.messageId(), current.requestId(), current.reservationId(), 5, 1, 8, 1_000, 2_000);
        assertThat(OrderConsumer.authentic(engine, otherUser))
                .as("the same ids for another user")
                .isFalse();
        OrderCreateRequested otherSku = OrderCreateRequested.of(
                current.messageId(), current.requestId(), current.reservationId(), 5, 2, 7, 1_000, 2_000);
        assertThat(OrderConsumer.authentic(engine, otherSku)).isFalse();
        OrderCreateRequested otherMessage = OrderCreateRequested.of(
                UUID.randomUUID(), current.requestId(), current.reservationId(), 5, 1, 7, 1_000, 2_000);
        assertThat(OrderConsumer.authentic(engine, otherMessage)).isFalse();
        ReservationIds stranger = new ReservationIds(Map.of(1, "a-key-that-is-not-the-engine-s-0123456789"));
        assertThat(OrderConsumer.authentic(engine, made(stranger, 1, 7))).isFalse();
    }
}
