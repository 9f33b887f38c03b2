package io.seckill.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.engines.AppProcess;
import io.seckill.support.ApiOnlyChild;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code serve} as a deployment runs it: the buyers' port carries the API only, the actuator has its own. */
class ManagementPortIT {

    @Test
    @DisplayName("serve: health, metrics and Prometheus answer on the management port and not on the buyers' port")
    void actuatorIsNotOnTheBuyersPort() throws Exception {
        // the API alone, as an API pod runs it: no worker of that process competes with the other tests' pipelines
        AppProcess app = ApiOnlyChild.get();
        SaleClient buyers = app.apiClient();
        SaleClient management = new SaleClient(app.managementUrl());
        for (String path : new String[] {"/actuator/health", "/actuator/prometheus", "/actuator/metrics"}) {
            assertThat(buyers.get(path, null).status())
                    .as("buyers' port " + path)
                    .isEqualTo(404);
        }
        SaleClient.Response ready = management.get("/actuator/health/readiness", null);
        assertThat(ready.status()).as(ready.body().toString()).isEqualTo(200);
        assertThat(ready.body().get("status")).isEqualTo("UP");
        assertThat(buyers.get("/api/v1/reservations/" + java.util.UUID.randomUUID(), null)
                        .status())
                .as("the API is on the buyers' port (a token is required)")
                .isEqualTo(401);
        assertThat(management.getText("/actuator/prometheus"))
                .contains("reservation_admitted_total", "http_server_requests_seconds");
    }
}
