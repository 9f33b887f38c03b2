package io.seckill.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.redis.SkuSlot;
import io.seckill.state.ObjectKind;
import io.seckill.state.SaleStatus;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Recovery decides on the state as it is now, and every orphaned index entry has a rule. */
class StaleStateIT extends IntegrationTest {

    private static final Duration NOW = Duration.ofMillis(1);

    @Autowired
    Reconciler reconciler;

    @Autowired
    SaleRegistry registry;

    @Autowired
    Anomalies anomalies;

    @Autowired
    RedisRecalibration recalibration;

    @Test
    @DisplayName(
            "a sale cached while OPEN and closed since is recalibrated CLOSED after Redis key loss, never reopened")
    void recalibrationReadsTheSaleStatusFresh() throws Exception {
        long activityId = openSale(5);
        placeOrder(activityId, 1, 701);
        Activity seenWhileOpen = registry.find(activityId).orElseThrow();
        assertThat(seenWhileOpen.status()).isEqualTo(SaleStatus.OPEN);
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/close", adminToken(), null)
                        .status())
                .isEqualTo(200);
        awaitSettled(activityId, 1);
        deleteKeys(SkuSlot.single(activityId, 1));

        // the recovery is handed the sale as an instance cached it while it was open
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> "RECALIBRATED"
                        .equals(recalibration.recover(seenWhileOpen, seenWhileOpen.sku(1), new HashMap<>())));

        assertThat(redis.sync().hget(SkuSlot.single(activityId, 1).meta(), "status"))
                .isEqualTo("CLOSED");
        assertThat(reserve(702, activityId, 1).code()).isEqualTo("ACTIVITY_NOT_OPEN");
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("the live sales carry the status PostgreSQL has now, not the one first cached")
    void liveSalesCarryFreshStatus() throws Exception {
        long activityId = openSale(2);
        assertThat(registry.find(activityId).orElseThrow().status()).isEqualTo(SaleStatus.OPEN);
        assertThat(client().post("/api/v1/admin/activities/" + activityId + "/close", adminToken(), null)
                        .status())
                .isEqualTo(200);
        Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(registry.live())
                        .filteredOn(a -> a.activityId() == activityId)
                        .singleElement()
                        .satisfies(a -> assertThat(a.status()).isEqualTo(SaleStatus.CLOSED)));
        assertThat(registry.find(activityId).orElseThrow().status()).isEqualTo(SaleStatus.CLOSED);
    }

    @Test
    @DisplayName(
            "orphaned index entries: resolved by reconciliation once PostgreSQL holds the reservation decided, kept "
                    + "open for a person while it does not")
    void orphanRule() throws Exception {
        String unknown = UUID.randomUUID().toString();
        long activityId = openSale(3);
        UUID orderId = placeOrder(activityId, 1, 703);
        String decided = jdbc.queryForObject(
                "SELECT reservation_id::text FROM orders WHERE order_id = ?", String.class, orderId);
        anomalies.record(
                AnomalyKind.SEND_DUE_ORPHAN, ObjectKind.RESERVATION, decided, activityId, 1L, Map.of("slot", "x"));
        anomalies.record(
                AnomalyKind.DEADLINE_RESERVATION_MISSING,
                ObjectKind.RESERVATION,
                unknown,
                activityId,
                1L,
                Map.of("slot", "x"));

        Reconciler.Report r = reconciler.run(activityId, NOW);

        assertThat(r.repairs()).containsEntry("ORPHAN_RESOLVED", 1);
        assertThat(jdbc.queryForMap(
                        "SELECT status, evidence->>'resolution' AS resolution FROM reconcile_anomaly "
                                + "WHERE object_id = ? AND anomaly_type = 'SEND_DUE_ORPHAN'",
                        decided))
                .containsEntry("status", "RESOLVED")
                .containsEntry("resolution", "PostgreSQL holds the reservation as ORDER_CREATED");
        assertThat(jdbc.queryForObject(
                        "SELECT status FROM reconcile_anomaly WHERE object_id = ?", String.class, unknown))
                .isEqualTo("OPEN");
    }
}
