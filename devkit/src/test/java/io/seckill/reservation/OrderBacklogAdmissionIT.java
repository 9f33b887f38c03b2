package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * DESIGN.md §11.3 point 1 (fault #14): with the order consumers far behind, the entry stops taking new
 * reservations instead of queueing buyers for orders that are minutes away, and opens again by itself
 * once they have caught up. With an order wait target it slows down before that: new reservations
 * follow what the consumers settle.
 */
class OrderBacklogAdmissionIT extends IntegrationTest {

    @Autowired
    AdmissionBreaker breaker;

    @Autowired
    OrderPace pace;

    @Test
    @DisplayName(
            "fault #14: an order message held past the backlog limit pauses admission (503 ADMISSION_PAUSED, no unit "
                    + "taken); once it is consumed the entry opens again by itself and the buyer refused is admitted, every "
                    + "invariant PASS")
    void entryPausesWhileConsumersAreBehind() throws Exception {
        long backlogTrips = breaker.trips(AdmissionBreaker.Cause.ORDER_BACKLOG);
        long sendTrips = breaker.trips(AdmissionBreaker.Cause.SEND);
        breaker.maxOrderBacklogAge(Duration.ofSeconds(4));
        // its age passes the 4 s limit while it waits
        long activityId = saleWithOrderHeld(1401, Duration.ofSeconds(14));

        Awaitility.await("admission paused for the backlog")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> breaker.cause() == AdmissionBreaker.Cause.ORDER_BACKLOG);
        assertThat(meters.get("admission.paused").gauge().value()).isEqualTo(1.0);
        assertTurnedAway(activityId, 1402, 503, "ADMISSION_PAUSED", "order consumers catch up");
        assertThat(count("SELECT count(*) FROM inventory_reservation WHERE activity_id = ?", activityId))
                .as("the held message has not been decided yet")
                .isZero();

        // the held message creates its order, the group's offset moves on, the next readings are under half the limit
        awaitSettled(activityId, 1);
        Awaitility.await("admission resumed")
                .atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> breaker.cause() == null);
        assertThat(reserve(1402, activityId, 1).status())
                .as("the buyer refused while paused")
                .isEqualTo(202);
        awaitSettled(activityId, 2);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(2);
        assertThat(breaker.trips(AdmissionBreaker.Cause.ORDER_BACKLOG) - backlogTrips)
                .isEqualTo(1);
        assertThat(breaker.trips(AdmissionBreaker.Cause.SEND) - sendTrips)
                .as("the send path never paused")
                .isZero();
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "fault #14: with an order wait target, consumers that stop settling pace new reservations down to none "
                    + "(429 RATE_LIMITED, no unit taken) long before the backlog would pause the entry; once they settle again the "
                    + "pace lifts by itself and the buyer turned away is admitted, every invariant PASS")
    void entryPacesToTheConsumers() throws Exception {
        double turnedAway = counter("reservation.rate_limited", "scope", "order_pace");
        long trips = breaker.trips();
        pace.setTarget(Duration.ofSeconds(1));
        // the consumers settle nothing while it waits
        long activityId = saleWithOrderHeld(1411, Duration.ofSeconds(9));

        Awaitility.await("paced to nothing")
                .atMost(Duration.ofSeconds(7))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> pace.perSecond() == 0);
        assertThat(meters.get("admission.order.pace.per.second").gauge().value())
                .isZero();
        assertTurnedAway(activityId, 1412, 429, "RATE_LIMITED", "order consumers");
        assertThat(counter("reservation.rate_limited", "scope", "order_pace") - turnedAway)
                .isEqualTo(1);
        assertThat(breaker.cause()).as("the pace, not the pause").isNull();

        awaitSettled(activityId, 1);
        Awaitility.await("pace lifted")
                .atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> Double.isInfinite(pace.perSecond()));
        assertThat(meters.get("admission.order.pace.per.second").gauge().value())
                .isEqualTo(-1);
        assertThat(reserve(1412, activityId, 1).status())
                .as("the buyer turned away")
                .isEqualTo(202);
        awaitSettled(activityId, 2);
        assertThat(count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId))
                .isEqualTo(2);
        assertThat(breaker.trips() - trips).as("admission never paused").isZero();
        assertInvariants(activityId, true);
    }

    /** A sale of 5 units whose first buyer is admitted and whose order message then stalls {@code held} in its transaction. */
    private long saleWithOrderHeld(long buyer, Duration held) throws Exception {
        long activityId = openSale(5);
        Failpoints.arm(Failpoint.AFTER_INBOX_INSERT, "delay:" + held.toMillis() + "*1");
        assertThat(reserve(buyer, activityId, 1).status()).isEqualTo(202);
        return activityId;
    }

    /** {@code buyer} is answered {@code status} / {@code code} naming the consumers, and takes no unit. */
    private void assertTurnedAway(long activityId, long buyer, int status, String code, String detail)
            throws Exception {
        String stock = redis.sync().get(SkuSlot.single(activityId, 1).stock());
        SaleClient.Response refused = reserve(buyer, activityId, 1);
        assertThat(refused.status()).as(refused.body().toString()).isEqualTo(status);
        assertThat(refused.code()).isEqualTo(code);
        assertThat(refused.body().get("detail").toString()).contains(detail);
        assertThat(redis.sync().get(SkuSlot.single(activityId, 1).stock()))
                .as("a buyer turned away takes no unit")
                .isEqualTo(stock);
    }

    /** A test that failed before its end leaves the breaker, the pace and the failpoints as configured. */
    @AfterEach
    void restore() {
        Failpoints.disarmAll();
        pace.setTarget(props.admission().orderWaitTarget());
        breaker.maxOrderBacklogAge(props.admission().maxOrderBacklogAge());
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> breaker.cause() == null);
    }
}
