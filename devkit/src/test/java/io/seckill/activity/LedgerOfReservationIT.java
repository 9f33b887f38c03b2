package io.seckill.activity;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
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
 * An operator's evidence of a reservation reads its ledger rows by their keys: the ledger keeps no index by
 * reservation, and a season's ledger is too long to read whole for one reservation.
 */
class LedgerOfReservationIT extends IntegrationTest {

    @Autowired
    Stock stock;

    @Test
    @DisplayName("a cancelled order's reservation: its OCCUPY and RELEASE rows, the same rows a scan by reservation_id "
            + "finds, read through the primary key")
    void aReservationsRowsByTheirKeys() throws Exception {
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

        List<Map<String, Object>> rows = stock.ledgerOf(reservation);

        assertThat(rows).extracting(r -> r.get("change_type")).containsExactly("OCCUPY", "RELEASE");
        assertThat(rows)
                .isEqualTo(jdbc.queryForList(
                        "SELECT * FROM inventory_ledger WHERE reservation_id = ? ORDER BY ledger_id", reservation));
        // whatever this test database's ledger holds: sequential scans priced out, the lookup must have an index
        String plan = tx.execute(s -> {
            jdbc.execute("SET LOCAL enable_seqscan = off");
            return String.join(
                    "\n",
                    jdbc.queryForList(
                            "EXPLAIN " + LedgerRepository.OF_RESERVATION,
                            String.class,
                            reservation,
                            reservation,
                            reservation));
        });
        assertThat(plan).contains("inventory_ledger_pkey").doesNotContain("Seq Scan");
        assertInvariants(activityId, true);
    }
}
