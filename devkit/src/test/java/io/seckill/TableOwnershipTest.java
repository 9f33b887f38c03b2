package io.seckill;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import io.seckill.activity.InventoryRepository;
import io.seckill.activity.LedgerRepository;
import io.seckill.anomaly.AnomalyRepository;
import io.seckill.compensation.CompensationTaskRepository;
import io.seckill.hold.HoldRepository;
import io.seckill.inbox.InboxRepository;
import io.seckill.inbox.QuarantineRepository;
import io.seckill.order.OrderRepository;
import io.seckill.outbox.OutboxRepository;
import io.seckill.payment.PaymentRepository;
import io.seckill.reconcile.ReconcileRepository;
import io.seckill.reconcile.RepairRepository;
import io.seckill.reservation.ReservationRepository;
import io.seckill.support.SqlConstants;

/**
 * One owner per table (docs/DESIGN.md, "Tables and their owners"): every statement lives in the
 * repository of the table it is about - the one it writes, or the one it reads from - and may join
 * other tables only to read them. Every table the migrations create has exactly one owner.
 */
class TableOwnershipTest {

    /** table -> the one repository whose SQL is about it. */
    static final Map<String, String> OWNERS = Map.ofEntries(
            Map.entry("activity", "io.seckill.activity.ActivityRepository"),
            Map.entry("sku_inventory", InventoryRepository.class.getName()),
            Map.entry("inventory_ledger", LedgerRepository.class.getName()),
            Map.entry("stock_adjustment", "io.seckill.activity.StockAdjustmentRepository"),
            Map.entry("inventory_reservation", ReservationRepository.class.getName()),
            Map.entry("orders", OrderRepository.class.getName()),
            Map.entry("payment_record", PaymentRepository.class.getName()),
            Map.entry("payment_attempt", PaymentRepository.class.getName()),
            Map.entry("payment_statement_checkpoint", PaymentRepository.class.getName()),
            Map.entry("consumer_inbox", InboxRepository.class.getName()),
            Map.entry("message_quarantine", QuarantineRepository.class.getName()),
            Map.entry("event_outbox", OutboxRepository.class.getName()),
            Map.entry("compensation_task", CompensationTaskRepository.class.getName()),
            Map.entry("reconcile_anomaly", AnomalyRepository.class.getName()),
            Map.entry("manual_hold", HoldRepository.class.getName()),
            Map.entry("audit_log", HoldRepository.class.getName()),
            Map.entry("repair_task", RepairRepository.class.getName()),
            Map.entry("reconcile_lease", ReconcileRepository.class.getName()));

    private static final Pattern CREATE_TABLE = Pattern.compile("CREATE TABLE (\\w+)", Pattern.CASE_INSENSITIVE);

    @Test
    @DisplayName("every statement is declared by the owner of the table it is about")
    void statementsLiveWithTheirTable() {
        var statements = SqlConstants.all();
        assertThat(statements).as("the scan finds the product's SQL").hasSizeGreaterThan(80);
        Set<String> wrong = new TreeSet<>();
        for (SqlConstants.Statement s : statements) {
            String table = s.table();
            if (table == null) {
                continue;
            }
            String owner = OWNERS.get(table);
            if (owner == null) {
                wrong.add(s.owner().getSimpleName() + "." + s.name() + " is about " + table + ", a table with no owner");
            } else if (!owner.equals(s.owner().getName())) {
                wrong.add(s.owner().getSimpleName() + "." + s.name() + " is about " + table + ", owned by " + owner);
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    @DisplayName("every table of the migrations has exactly one owning repository, and owners own real tables")
    void everyTableHasAnOwner() throws IOException {
        Set<String> tables = new TreeSet<>();
        for (Resource r : new PathMatchingResourcePatternResolver().getResources("classpath*:db/migration/*.sql")) {
            try (InputStream in = r.getInputStream()) {
                Matcher m = CREATE_TABLE.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                while (m.find()) {
                    tables.add(m.group(1).toLowerCase());
                }
            }
        }
        assertThat(tables).hasSizeGreaterThan(10);
        assertThat(OWNERS.keySet()).containsExactlyInAnyOrderElementsOf(tables);
    }

    @Test
    @DisplayName("the statement scan reads the main table of writes, claims and joins right")
    void scanReadsTheMainTable() {
        assertThat(new SqlConstants.Statement(Object.class, "x", """
                WITH due AS (SELECT order_id FROM orders WHERE status = 'CREATED' FOR UPDATE SKIP LOCKED)
                UPDATE orders AS o SET status = 'PAID' FROM due WHERE o.order_id = due.order_id
                """).table()).isEqualTo("orders");
        assertThat(new SqlConstants.Statement(Object.class, "x", """
                SELECT count(*) FROM payment_record p JOIN orders o ON o.order_id = p.order_id
                """).table()).isEqualTo("payment_record");
        assertThat(new SqlConstants.Statement(Object.class, "x", """
                SELECT count(*) FROM (SELECT 1 FROM orders GROUP BY user_id) d
                """).table()).isEqualTo("orders");
        assertThat(new SqlConstants.Statement(Object.class, "x", """
                INSERT INTO inventory_ledger (a) SELECT a FROM unnest(?::bigint[]) AS t(a)
                """).table()).isEqualTo("inventory_ledger");
        assertThat(new SqlConstants.Statement(Object.class, "x", "SELECT clock_timestamp()").table()).isNull();
    }
}
