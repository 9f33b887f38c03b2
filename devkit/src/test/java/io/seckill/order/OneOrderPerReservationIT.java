package io.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.seckill.reservation.ReservationIds;
import io.seckill.support.IntegrationTest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.DuplicateKeyException;

/**
 * One order per reservation is held by the order's primary key: an order's id is its reservation's derived id
 * ({@code ReservationIds.derived("ORDER", reservation)}), and a check makes PostgreSQL refuse any other, so two
 * orders of one reservation would share an id.
 */
class OneOrderPerReservationIT extends IntegrationTest {

    private static final String INSERT = """
            INSERT INTO orders (order_id, activity_id, sku_id, user_id, request_id, reservation_id, status, amount,
                                expires_at)
            VALUES (?, ?, 1, ?, ?, ?, 'CREATED', 1.00, clock_timestamp() + interval '15 minutes')
            """;

    @Test
    @DisplayName("order_id_of in SQL gives the id the order transaction derives in Java, for 5,000 reservations")
    void sqlDerivesTheJavaId() {
        List<UUID> reservations = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            reservations.add(new UUID(
                    ThreadLocalRandom.current().nextLong(),
                    ThreadLocalRandom.current().nextLong()));
        }
        reservations.add(new UUID(0, 0));
        reservations.add(new UUID(-1, -1));
        List<UUID> sql = jdbc.queryForList(
                "SELECT order_id_of(r) FROM unnest(?::uuid[]) WITH ORDINALITY AS t(r, n) ORDER BY n",
                UUID.class,
                (Object) reservations.stream().map(UUID::toString).toArray(String[]::new));
        assertThat(sql)
                .containsExactlyElementsOf(reservations.stream()
                        .map(r -> ReservationIds.derived("ORDER", r))
                        .toList());
    }

    @Test
    @DisplayName("an order whose id is not its reservation's derived id is refused, and nothing is written")
    void anIdNotDerivedIsRefused() {
        long activityId = newActivityId();
        UUID reservation = UUID.randomUUID();
        UUID other = ReservationIds.derived("ORDER", UUID.randomUUID());
        assertThatThrownBy(() -> jdbc.update(INSERT, other, activityId, 7L, UUID.randomUUID(), reservation))
                .isInstanceOf(DataIntegrityViolationException.class)
                .hasMessageContaining("ck_orders_id_of_reservation");
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .isZero();
    }

    @Test
    @DisplayName("a second order of the same reservation, for another user, is refused by the primary key; lookups "
            + "by reservation find the first")
    void aSecondOrderOfOneReservationIsRefused() {
        long activityId = newActivityId();
        UUID reservation = UUID.randomUUID();
        UUID orderId = ReservationIds.derived("ORDER", reservation);
        jdbc.update(INSERT, orderId, activityId, 7L, UUID.randomUUID(), reservation);
        assertThatThrownBy(() -> jdbc.update(INSERT, orderId, activityId, 8L, UUID.randomUUID(), reservation))
                .isInstanceOf(DuplicateKeyException.class)
                .hasMessageContaining("orders_pkey");
        assertThat(count("SELECT count(*) FROM orders WHERE reservation_id = ?", reservation))
                .isEqualTo(1);
        assertThat(jdbc.queryForObject(
                        "SELECT user_id FROM orders WHERE order_id = order_id_of(?)", Long.class, reservation))
                .isEqualTo(7L);
        String plan = String.join(
                "\n",
                jdbc.queryForList(
                        "EXPLAIN SELECT * FROM orders WHERE order_id = order_id_of(?)", String.class, reservation));
        assertThat(plan).as("a lookup by reservation").contains("orders_pkey");
        jdbc.update("DELETE FROM orders WHERE activity_id = ?", activityId);
    }

    @Test
    @DisplayName("the order transaction writes no index of orders by reservation: the primary key serves")
    void noIndexByReservation() {
        assertThat(jdbc.queryForList(
                        "SELECT indexname FROM pg_indexes WHERE tablename = 'orders' AND indexdef LIKE '%(reservation_id)%'",
                        String.class))
                .isEmpty();
    }
}
