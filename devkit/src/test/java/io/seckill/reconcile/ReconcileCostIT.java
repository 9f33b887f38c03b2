package io.seckill.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.IntegrationTest;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.test.util.ReflectionTestUtils;

/** Reconciliation and status queries cost what the change costs, with the indexes their plans need. */
class ReconcileCostIT extends IntegrationTest {

    private static final Duration NOW = Duration.ofMillis(1);

    @Autowired
    Reconciler reconciler;

    @Autowired
    io.seckill.activity.SaleRegistry registry;

    @Test
    @DisplayName(
            "periodic runs judge a SKU whole once, then only what changed since: nothing -> 0 rows, one cancelled order -> 1")
    void periodicRunsJudgeTheChange() throws Exception {
        List<UUID> orders = new ArrayList<>();
        long activityId = openSale(10);
        for (int u = 1; u <= 6; u++) {
            orders.add(placeOrder(activityId, 1, 900 + u));
        }
        awaitSettled(activityId, 6);
        // periodic runs cover the live sales, whose list each instance re-reads at most once a second
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> registry.live().stream().anyMatch(a -> a.activityId() == activityId));

        assertThat(checked(reconciler.run(null, NOW), activityId))
                .as("first run: a full pass")
                .isEqualTo(6);
        assertThat(checked(reconciler.run(null, NOW), activityId))
                .as("nothing changed")
                .isZero();

        jdbc.update(
                "UPDATE orders SET status = 'CANCEL_PENDING', version = version + 1, updated_at = clock_timestamp() "
                        + "WHERE order_id = ?",
                orders.getFirst());
        assertThat(checked(reconciler.run(null, NOW), activityId))
                .as("one order changed")
                .isEqualTo(1);
        assertThat(checked(reconciler.run(activityId, NOW), activityId))
                .as("on demand: always whole")
                .isEqualTo(6);
    }

    @Test
    @DisplayName(
            "a reservation's status is read from the slot the status URL names, from PostgreSQL's record, or by one "
                    + "pipelined look over the live sales - each gives the same answer")
    void statusQueryFindsTheSlot() throws Exception {
        long activityId = openSale(3, 3);
        var r = reserve(961, activityId, 2);
        String rid = (String) r.body().get("reservation_id");
        String statusUrl = (String) r.body().get("status_url");
        assertThat(statusUrl).isEqualTo("/api/v1/reservations/" + rid + "?activity_id=" + activityId + "&sku_id=2");
        awaitSettled(activityId, 1);
        for (String path : List.of(statusUrl, "/api/v1/reservations/" + rid)) {
            var v = client().get(path, userToken(961));
            assertThat(v.status()).as(path).isEqualTo(200);
            assertThat(v.body())
                    .as(path)
                    .containsEntry("state", "ORDER_CREATED")
                    .containsEntry("source", "redis");
        }
        assertThat(client().get(statusUrl, userToken(962)).status())
                .as("another buyer's")
                .isEqualTo(404);
        assertThat(client().get(
                                "/api/v1/reservations/" + rid + "?activity_id=" + activityId + "&sku_id=1",
                                userToken(961))
                        .body())
                .as("a wrong hint falls back to PostgreSQL")
                .containsEntry("state", "ORDER_CREATED");
    }

    @Test
    @DisplayName("per-SKU gauges are removed when a sale is closed out")
    void gaugesRemovedAtCloseOut() throws Exception {
        long activityId = openSale(3);
        placeOrder(activityId, 1, 951);
        awaitSettled(activityId, 1);
        reconciler.run(activityId, NOW);
        assertThat(meters.find("inventory.cross_system.delta")
                        .tag("activity", Long.toString(activityId))
                        .gauges())
                .isNotEmpty();
        var r = client().post(
                        "/api/v1/admin/activities/" + activityId + "/close-out?drain_seconds=30",
                        adminToken(),
                        java.util.Map.of("reason", "test close-out"));
        assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
        assertThat(meters.find("inventory.cross_system.delta")
                        .tag("activity", Long.toString(activityId))
                        .gauges())
                .isEmpty();
        assertThat(meters.find("inventory.pg.invariant.delta")
                        .tag("activity", Long.toString(activityId))
                        .gauges())
                .isEmpty();
    }

    @Test
    @DisplayName(
            "the plans use the indexes: change windows, the task and outbox joins, holds, the runbook's id lookups")
    void plansUseIndexes() {
        String changedReservations = sql("io.seckill.reservation.ReservationRepository", "CHANGED");
        String changedOrders = sql("io.seckill.order.OrderRepository", "CHANGED");
        String resolve = sql("io.seckill.reservation.ReservationRepository", "RESOLVE");
        String resolvePayment = sql("io.seckill.payment.PaymentRepository", "RESERVATION_OF_RECORD");
        Object[] window = {
            1L, 1L, java.sql.Timestamp.from(java.time.Instant.EPOCH), new UUID(0, 0), "1 second", "1 second", 1000
        };
        String id = UUID.randomUUID().toString();
        // the walk and the task join use their indexes; the pending-outbox and hold anti-joins are index probes or
        // scans
        // of a partial index of pending rows only (which one PostgreSQL picks depends on its statistics) - never a
        // sequential scan of a table
        assertThat(plan(changedReservations, window))
                .contains("idx_inventory_reservation_sku_changed")
                .contains("idx_compensation_task_reservation")
                .containsPattern("idx_event_outbox_(aggregate_pending|dispatch)")
                .doesNotContain("Seq Scan");
        assertThat(plan(changedOrders, window))
                .contains("idx_orders_sku_changed")
                .doesNotContain("Seq Scan");
        UUID uuid = UUID.fromString(id);
        assertThat(plan(resolve, uuid, uuid, uuid, uuid))
                .contains("uq_inventory_reservation_request_id")
                .contains("orders_pkey")
                .doesNotContain("Seq Scan");
        assertThat(plan(resolvePayment, id, "tx"))
                .contains("idx_payment_record_provider_transaction")
                .doesNotContain("Seq Scan on payment_record");
    }

    @Test
    @DisplayName(
            "inspect's lookups by reservation - its order, payments, ledger rows and inbox rows - go through keys, "
                    + "never a sequential scan of a table a season keeps growing")
    void evidenceOfAReservationUsesKeys() {
        UUID r = UUID.randomUUID();
        assertThat(plan(sql("io.seckill.order.OrderRepository", "FIND_BY_RESERVATION"), r))
                .contains("orders_pkey")
                .doesNotContain("Seq Scan");
        assertThat(plan(sql("io.seckill.order.OrderRepository", "ROWS_OF_RESERVATION"), r))
                .contains("orders_pkey")
                .doesNotContain("Seq Scan");
        for (String name : List.of("RECORDS_OF_RESERVATION", "ATTEMPTS_OF_RESERVATION")) {
            assertThat(plan(sql("io.seckill.payment.PaymentRepository", name), r))
                    .as(name)
                    .contains("orders_pkey")
                    .doesNotContain("Seq Scan");
        }
        assertThat(plan(sql("io.seckill.activity.LedgerRepository", "OF_RESERVATION"), r, r, r))
                .contains("inventory_ledger_pkey")
                .doesNotContain("Seq Scan");
        assertThat(plan(sql("io.seckill.inbox.InboxRepository", "OF_RESERVATION"), r))
                .contains("consumer_inbox_pkey")
                .contains("inventory_reservation_pkey")
                .doesNotContain("Seq Scan");
    }

    private static String sql(Class<?> repository, String name) {
        return (String) ReflectionTestUtils.getField(repository, name);
    }

    /** A statement of a repository its feature keeps package-private. */
    private static String sql(String repository, String name) {
        try {
            return sql(Class.forName(repository), name);
        } catch (ClassNotFoundException e) {
            throw new AssertionError(repository + " is gone", e);
        }
    }

    /**
     * The plan PostgreSQL would choose if the tables were large: sequential scans and sorts priced out, so a walk
     * in change order takes the index that holds that order whatever the statistics of a small test table say.
     */
    private String plan(String sql, Object... args) {
        return jdbc.execute((ConnectionCallback<String>) c -> {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL enable_seqscan = off");
                s.execute("SET LOCAL enable_sort = off");
                try (PreparedStatement p = c.prepareStatement("EXPLAIN " + sql)) {
                    for (int i = 0; i < args.length; i++) {
                        p.setObject(i + 1, args[i]);
                    }
                    StringBuilder out = new StringBuilder();
                    try (ResultSet rs = p.executeQuery()) {
                        while (rs.next()) {
                            out.append(rs.getString(1)).append('\n');
                        }
                    }
                    org.slf4j.LoggerFactory.getLogger(ReconcileCostIT.class).info("plan:\n{}", out);
                    return out.toString();
                }
            } finally {
                c.rollback();
                c.setAutoCommit(auto);
            }
        });
    }

    private static long checked(Reconciler.Report report, long activityId) {
        return report.skus().stream()
                .filter(s -> s.activityId() == activityId)
                .mapToLong(Reconciler.SkuReport::reservationsChecked)
                .sum();
    }
}
