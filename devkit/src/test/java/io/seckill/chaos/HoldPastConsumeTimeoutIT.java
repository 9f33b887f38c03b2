package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * An order group held through a PostgreSQL outage longer than the consumer's consume timeout: the
 * broker client hands the held deliveries back for redelivery while the hold goes on. The copies wait
 * behind the hold and answer from the inbox once the database writes again.
 */
@Tag("outage")
@TestPropertySource(properties = {"seckill.order-consumer.consume-timeout=1m", "seckill.mq.max-reconsume-times=16"})
class HoldPastConsumeTimeoutIT extends IntegrationTest {

    private static final Duration OUTAGE = Duration.ofSeconds(150);

    @Test
    @DisplayName(
            "PostgreSQL not writing for 150 s under a 1-minute consume timeout: the held deliveries are handed back "
                    + "and come again while held; once it writes, each reservation is one order, the copies inbox duplicates, "
                    + "every invariant PASS")
    void holdOutlastsTheConsumeTimeout() throws Exception {
        long activityId = openSale(10);
        double held = counter("order.commit.held");
        double duplicates = counter("inbox.duplicate");
        double released = counter("order.commit.hold_released");
        List<String> queued = new ArrayList<>();
        try {
            serverReadOnly(true);
            for (long user = 1; user <= 5; user++) {
                queued.add(reservationId(user, activityId));
            }
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> counter("order.commit.held") > held);
            Awaitility.await("no order while PostgreSQL does not write")
                    .during(OUTAGE)
                    .atMost(OUTAGE.plusSeconds(10))
                    .until(() -> count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId) == 0);
        } finally {
            serverReadOnly(false);
        }
        awaitSettled(activityId, queued.size());
        for (String rid : queued) {
            assertThat(jdbc.queryForObject(
                            "SELECT status FROM inventory_reservation WHERE reservation_id = ?::uuid",
                            String.class,
                            rid))
                    .as(rid)
                    .isEqualTo("ORDER_CREATED");
            UUID r = UUID.fromString(rid);
            assertThat(count("SELECT count(*) FROM orders WHERE reservation_id = ?", r))
                    .isEqualTo(1);
            assertThat(count("SELECT count(*) FROM inventory_ledger WHERE reservation_id = ?", r))
                    .isEqualTo(1);
        }
        // the copies handed back at the timeout are delivered again and answered from the inbox
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> counter("inbox.duplicate") > duplicates);
        assertThat(counter("order.commit.hold_released"))
                .as("not a failure of the group's own")
                .isEqualTo(released);
        assertInvariants(activityId, true);
    }
}
