package io.seckill.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.entry.AdmissionEntry;
import io.seckill.json.Json;
import io.seckill.reconcile.Reconciler;
import io.seckill.support.IntegrationTest;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Every metric the alert rules and the Grafana dashboard read is on /actuator/prometheus after a
 * sale: an alert on a missing series never fires, a panel on one stays empty.
 */
class AlertMetricsIT extends IntegrationTest {

    @Autowired
    Reconciler reconciler;

    @Autowired
    AdmissionEntry entry;

    @Test
    @DisplayName(
            "every metric name in ops/prometheus/seckill-alerts.yml is exported after a sale and a reconciliation run")
    void alertMetricsExist() throws Exception {
        long activityId = openSale(3);
        reserve(71, activityId, 1);
        // and one through the admission entry, where buyers reserve
        SaleClient.Response viaEntry = new SaleClient(
                        "http://127.0.0.1:" + port,
                        "http://127.0.0.1:" + entry.port(),
                        "http://127.0.0.1:" + operatorPlane.port())
                .reserve(userToken(72), activityId, 1, UUID.randomUUID().toString());
        assertThat(viaEntry.status()).as(viaEntry.body().toString()).isEqualTo(202);
        awaitSettled(activityId, 2);
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
        Set<String> panels = new TreeSet<>();
        JsonNode dashboard = Json.MAPPER.readTree(
                Files.readString(AlertRulesTest.ops().getParent().resolve("grafana/seckill-sale.json")));
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.get("targets")) {
                panels.addAll(AlertRulesTest.metricsOf(target.get("expr").asString()));
            }
        }
        assertThat(panels).as("the dashboard reads metrics").hasSizeGreaterThan(12);
        assertThat(exported).containsAll(panels);
    }
}
