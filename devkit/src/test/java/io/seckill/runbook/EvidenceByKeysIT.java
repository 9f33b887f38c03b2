package io.seckill.runbook;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.activity.Stock;
import io.seckill.cli.SaleClient;
import io.seckill.inbox.Inbox;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * An operator's evidence of a reservation reads its ledger and inbox rows by their keys (the plans:
 * ReconcileCostIT.evidenceOfAReservationUsesKeys) and finds exactly the rows a scan by reservation_id finds.
 */
class EvidenceByKeysIT extends IntegrationTest {

    private static final String OTHER_GROUP = "zz-evidence-other-group";

    @Autowired
    Stock stock;

    @Autowired
    Inbox inbox;

    @Test
    @DisplayName("a cancelled order's reservation: its OCCUPY and RELEASE ledger rows, and its inbox rows in two "
            + "consumer groups, read by key - the same rows a scan by reservation_id finds")
    void theSameRowsAsAScan() throws Exception {
        long activityId = openSale(2);
        UUID order = placeOrder(activityId, 1, 1);
        placeOrder(activityId, 1, 2);
        UUID reservation =
                jdbc.queryForObject("SELECT reservation_id FROM orders WHERE order_id = ?", UUID.class, order);
        SaleClient.Response cancelled = client().post("/api/v1/orders/" + order + "/cancel", userToken(1), null);
        assertThat(cancelled.status()).as(cancelled.body().toString()).isEqualTo(200);
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> count(
                                "SELECT count(*) FROM inventory_ledger WHERE reservation_id = ? AND change_type = 'RELEASE'",
                                reservation)
                        == 1);
        // the same message consumed by a second group (another consumer of the topic, or a renamed group)
        jdbc.update("""
                INSERT INTO consumer_inbox (consumer_group, message_id, topic, event_type, reservation_id, request_id,
                                            payload_hash, result_code, order_id)
                SELECT ?, message_id, topic, event_type, reservation_id, request_id, payload_hash, result_code, order_id
                FROM consumer_inbox WHERE reservation_id = ?
                """, OTHER_GROUP, reservation);
        try {
            List<Map<String, Object>> ledger = stock.ledgerOf(reservation);
            assertThat(ledger).extracting(r -> r.get("change_type")).containsExactly("OCCUPY", "RELEASE");
            assertThat(ledger)
                    .isEqualTo(jdbc.queryForList(
                            "SELECT * FROM inventory_ledger WHERE reservation_id = ? ORDER BY ledger_id", reservation));

            List<Map<String, Object>> inboxRows = inbox.ofReservation(reservation);
            assertThat(inboxRows).hasSize(2);
            assertThat(inboxRows)
                    .isEqualTo(jdbc.queryForList(
                            "SELECT consumer_group, message_id, result_code, order_id, processed_at FROM consumer_inbox "
                                    + "WHERE reservation_id = ? ORDER BY consumer_group",
                            reservation));
        } finally {
            jdbc.update("DELETE FROM consumer_inbox WHERE consumer_group = ?", OTHER_GROUP);
        }
        // the cancelled unit goes back to Redis after the cancel's transaction (its compensation): quiet once it has
        Awaitility.await("the cancelled unit back in Redis")
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertInvariants(activityId, true));
    }
}
