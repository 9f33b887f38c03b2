package io.seckill.activity;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.IntegrationTest;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Which sales the background workers (deadline sweeper, send-due rescan, reconciler) still walk. */
class SaleLivenessIT extends IntegrationTest {

    @Autowired
    SaleRegistry registry;

    @Test
    @DisplayName(
            "a sale that ended eight days ago stays live while its 30-day payment timeout can still expire orders, "
                    + "and one whose deadlines all passed over a week ago leaves")
    void liveUntilTheLongestTimeoutHasPassed() {
        long longPayment = newActivityId();
        long shortPayment = newActivityId();
        insertEnded(longPayment, 8, 300, (int) Duration.ofDays(30).toSeconds());
        insertEnded(shortPayment, 8, 300, 900);
        Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(registry.live())
                        .extracting(Activity::activityId)
                        .contains(longPayment)
                        .doesNotContain(shortPayment));
    }

    /** A closed sale that ended {@code daysAgo} days ago, written as it stands in PostgreSQL. */
    private void insertEnded(long activityId, int daysAgo, int deadlineSeconds, int paymentTimeoutSeconds) {
        jdbc.update(
                "INSERT INTO activity (activity_id, name, status, starts_at, ends_at, business_deadline_seconds, "
                        + "payment_timeout_seconds) VALUES (?, ?, 'CLOSED', now() - make_interval(days => ? + 1), "
                        + "now() - make_interval(days => ?), ?, ?)",
                activityId,
                "ended sale " + activityId,
                daysAgo,
                daysAgo,
                deadlineSeconds,
                paymentTimeoutSeconds);
    }
}
