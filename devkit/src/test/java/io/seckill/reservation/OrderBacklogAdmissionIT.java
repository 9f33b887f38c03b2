package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import io.seckill.cli.SaleClient;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;

/**
 * DESIGN.md §11.3 point 1 (fault #14): with the order consumers far behind, the entry stops taking new
 * reservations instead of queueing buyers for orders that are minutes away, and opens again by itself
 * once they have caught up.
 */
class OrderBacklogAdmissionIT extends IntegrationTest {

    @Autowired
    AdmissionBreaker breaker;

    @Test
    @DisplayName("fault #14: an order message held past the backlog limit pauses admission (503 ADMISSION_PAUSED, no unit "
            + "taken); once it is consumed the entry opens again by itself and the buyer refused is admitted, every "
            + "invariant PASS")
    void entryPausesWhileConsumersAreBehind() throws Exception {
        long activityId = openSale(5);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        long backlogTrips = breaker.trips(AdmissionBreaker.Cause.ORDER_BACKLOG);
        long sendTrips = breaker.trips(AdmissionBreaker.Cause.SEND);
        breaker.maxOrderBacklogAge(Duration.ofSeconds(4));
        // the one order message stalls 14 s in its transaction: its age passes the 4 s limit while it waits
        Failpoints.arm(Failpoint.AFTER_INBOX_INSERT, "delay:14000*1");
        assertThat(reserve(1401, activityId, 1).status()).isEqualTo(202);

        Awaitility.await("admission paused for the backlog").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> breaker.cause() == AdmissionBreaker.Cause.ORDER_BACKLOG);
        assertThat(meters.get("admission.paused").gauge().value()).isEqualTo(1.0);
        String stockWhilePaused = redis.sync().get(slot.stock());
        SaleClient.Response refused = reserve(1402, activityId, 1);
        assertThat(refused.status()).as(refused.body().toString()).isEqualTo(503);
        assertThat(refused.code()).isEqualTo("ADMISSION_PAUSED");
        assertThat(refused.body().get("detail").toString()).contains("order consumers catch up");
        assertThat(redis.sync().get(slot.stock())).as("a refused buyer takes no unit").isEqualTo(stockWhilePaused);
        assertThat(count("SELECT count(*) FROM inventory_reservation WHERE activity_id = ?", activityId))
                .as("the held message has not been decided yet").isZero();

        // the held message creates its order, the group's offset moves on, the next readings are under half the limit
        awaitSettled(activityId, 1);
        Awaitility.await("admission resumed").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> breaker.cause() == null);
        assertThat(reserve(1402, activityId, 1).status()).as("the buyer refused while paused").isEqualTo(202);
        awaitSettled(activityId, 2);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId)).isEqualTo(2);
        assertThat(breaker.trips(AdmissionBreaker.Cause.ORDER_BACKLOG) - backlogTrips).isEqualTo(1);
        assertThat(breaker.trips(AdmissionBreaker.Cause.SEND) - sendTrips).as("the send path never paused").isZero();
        assertInvariants(activityId, true);
    }

    /** A test that failed before its end leaves the breaker and the failpoints as configured. */
    @AfterEach
    void restore() {
        Failpoints.disarmAll();
        breaker.maxOrderBacklogAge(props.admission().maxOrderBacklogAge());
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> breaker.cause() == null);
    }
}
