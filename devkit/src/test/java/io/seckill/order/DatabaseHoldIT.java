package io.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The order consumer holds a group that cannot reach PostgreSQL and tries it again once the database
 * answers, instead of handing it to the broker (a real 5-minute stop is in {@code LongOutageIT}); a group
 * that keeps failing so while the database answers goes back to the broker after a bounded number of tries.
 * A database that answers but does not write is waited out until it writes again.
 */
class DatabaseHoldIT extends IntegrationTest {

    /** The connection lost {@code times} times in the order transaction, and the counts that must follow. */
    record Losses(String description, int times, int held, int retries, int released) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Losses> losses() {
        return Stream.of(
                new Losses(
                        "a connection lost in the order transaction: the group is held and tried again once the database "
                                + "answers - one order, no redelivery",
                        2,
                        1,
                        0,
                        0),
                new Losses(
                        "a held group that keeps failing as if the database were away while it answers is handed back to "
                                + "the broker after a bounded number of tries: redelivered, one order",
                        OrderCommitQueue.MAX_FAILURES_WHILE_ANSWERING + 1,
                        1,
                        1,
                        1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("losses")
    void lostConnection(Losses losses) throws Exception {
        long activityId = openSale(3);
        Counts before = counts();
        Failpoints.arm(Failpoint.AFTER_INBOX_INSERT, "lose-connection*" + losses.times());
        String rid = firstSettled(activityId, 80 + losses.times());
        assertThat(counts())
                .as("held, handed back to the broker, released")
                .isEqualTo(before.plus(losses.held(), losses.retries(), losses.released()));
        assertThat(Failpoints.armed()).isEmpty();
        assertOnce(activityId, rid);
    }

    @Test
    @DisplayName("PostgreSQL turned read-only under the consumer (a standby behind the address after a failover, a "
            + "platform guarding a full disk): the group is held, not handed back, and settled once writes return")
    void readOnlyDatabaseIsWaitedOut() throws Exception {
        Counts before = counts();
        long activityId = openSale(3);
        try {
            serverReadOnly(true);
            String rid = reservationId(84, activityId);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> counts().held() > before.held());
            // the group is tried again after 0.2, 0.4, 0.8, 1.6 and 3.2 s: by now as often as a group that fails
            // "unreachable" while the database answers may be before it goes back to the broker; a database that
            // answers but does not write is waited out instead
            Awaitility.await("held, no order, for 8 s")
                    .during(Duration.ofSeconds(8))
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> count("SELECT count(*) FROM orders WHERE reservation_id = ?::uuid", rid) == 0
                            && meters.get("order.commit.holding").gauge().value() >= 1);
            serverReadOnly(false);
            awaitSettled(activityId, 1);
            assertThat(counts())
                    .as("held once, nothing handed back to the broker")
                    .isEqualTo(before.plus(1, 0, 0));
            assertOnce(activityId, rid);
        } finally {
            serverReadOnly(false);
        }
    }

    /** Groups held, deliveries handed back to the broker, holds released: counted so far. */
    private record Counts(double held, double retries, double released) {
        Counts plus(int moreHeld, int moreRetries, int moreReleased) {
            return new Counts(held + moreHeld, retries + moreRetries, released + moreReleased);
        }
    }

    private Counts counts() {
        return new Counts(
                counter("order.commit.held"),
                counter("order.consume", "result", "retry"),
                counter("order.commit.hold_released"));
    }

    private void assertOnce(long activityId, String rid) {
        UUID r = UUID.fromString(rid);
        assertThat(count("SELECT count(*) FROM orders WHERE reservation_id = ?", r))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM consumer_inbox WHERE reservation_id = ?", r))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM inventory_ledger WHERE reservation_id = ?", r))
                .isEqualTo(1);
        assertInvariants(activityId, true);
    }
}
