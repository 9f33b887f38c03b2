package io.seckill.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import io.seckill.reconcile.Reconciler;
import io.seckill.support.IntegrationTest;

/** Every metric the alert rules read is on /actuator/prometheus after a sale - an alert on a missing series never fires. */
class AlertMetricsIT extends IntegrationTest {

    @Autowired
    Reconciler reconciler;

    @Test
    @DisplayName("every metric name in ops/prometheus/seckill-alerts.yml is exported after a sale and a reconciliation run")
    void alertMetricsExist() throws Exception {
        long activityId = openSale(3);
        reserve(71, activityId, 1);
        awaitSettled(activityId, 1);
        reconciler.run(activityId, Duration.ZERO);
        String scrape = client().getText("/actuator/prometheus");
        Set<String> exported = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                exported.add(line.split("[{ ]", 2)[0]);
            }
        }
        Set<String> used = AlertRulesTest.metrics();
        assertThat(used).as("the rules read metrics").hasSizeGreaterThan(8);
        assertThat(exported).containsAll(used);
    }
}
