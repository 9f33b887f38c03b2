package io.seckill.deadline;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.reservation.AdmissionBreaker;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Fault #14: a backed-up broker makes reservations look expired; time-driven rejection waits for it -
 * for the order topic and for the consumer group's retry topic alike.
 */
class BacklogPauseIT extends IntegrationTest {

    @Autowired
    DeadlineSweeper sweeper;

    @Autowired
    AdmissionBreaker breaker;

    @Test
    @DisplayName(
            "fault #14: while the oldest unconsumed order message is older than the limit, the deadline sweeper pauses; the late message then creates its order")
    void sweeperPausesWhileBackedUp() throws Exception {
        long activityId = shortDeadlineSale();
        Failpoints.arm(Failpoint.AFTER_INBOX_INSERT, "delay:16000*1");
        String rid = reservationId(141, activityId);
        awaitPaused();
        assertThat(meters.get("mq.order.backlog.age.seconds").gauge().value()).isGreaterThan(0.8);
        // the business deadline (8 s) passes while the message is stuck: no tombstone is written
        Awaitility.await("no tombstone while the backlog is old")
                .during(Duration.ofSeconds(9))
                .atMost(Duration.ofSeconds(10))
                .until(() -> count(
                                "SELECT count(*) FROM inventory_reservation WHERE reservation_id = ?",
                                UUID.fromString(rid))
                        == 0);
        assertOrderedThenResumed(activityId, rid);
    }

    @Test
    @DisplayName(
            "fault #14 on the retry topic: a message handed back once and held up on its redelivery is backlog too - "
                    + "the sweeper pauses past the business deadline, and the redelivered message creates its order")
    void sweeperPausesForRedeliveries() throws Exception {
        long activityId = shortDeadlineSale();
        // the first delivery fails (handed back: the order topic is consumed), the redelivery from the group's
        // retry topic stalls 16 s in its transaction, past the 8 s business deadline
        Failpoints.arm(Failpoint.AFTER_INBOX_INSERT, "throw*1");
        Failpoints.arm(Failpoint.AFTER_ORDER_INSERT, "delay:16000*1");
        double retries = counter("order.consume", "result", "retry");
        String rid = reservationId(142, activityId);
        awaitPaused();
        assertThat(counter("order.consume", "result", "retry"))
                .as("the first delivery was handed back")
                .isEqualTo(retries + 1);
        assertOrderedThenResumed(activityId, rid);
    }

    /** A sale whose business deadline is 8 s, and a sweeper that pauses for a backlog older than 800 ms. */
    private long shortDeadlineSale() throws Exception {
        long activityId = openSale(8, new int[] {3});
        sweeper.pauseThreshold(Duration.ofMillis(800));
        sweeper.backedUp(); // the broker clients are up before the clock starts
        return activityId;
    }

    private void awaitPaused() {
        Awaitility.await()
                .atMost(Duration.ofSeconds(8))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> meters.get("deadline.paused").gauge().value() == 1.0);
    }

    /** The held message is processed when the consumer wakes: an order, not a late rejection; then the sweeper resumes. */
    private void assertOrderedThenResumed(long activityId, String rid) {
        awaitSettled(activityId, 1);
        assertThat(jdbc.queryForObject(
                        "SELECT status FROM inventory_reservation WHERE reservation_id = ?",
                        String.class,
                        UUID.fromString(rid)))
                .isEqualTo("ORDER_CREATED");
        sweeper.pauseThreshold(props.deadline().pauseWhenBacklogOlderThan());
        Awaitility.await()
                .atMost(Duration.ofSeconds(15))
                .until(() -> meters.get("deadline.paused").gauge().value() == 0.0);
        assertInvariants(activityId, true);
    }

    /**
     * A test that failed before its end leaves the sweeper as configured; and the entry open: a held message
     * that reached its consumer late (a queue still moving between consumers) can make a backlog older than
     * the entry breaker's limit, which pauses admission until the next readings find it gone.
     */
    @AfterEach
    void restoreThreshold() {
        sweeper.pauseThreshold(props.deadline().pauseWhenBacklogOlderThan());
        Awaitility.await("admission open again")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> !breaker.isOpen());
    }
}
