package io.seckill.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.IntegrationTest;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;

/** Each status enum has exactly the states its column's CHECK constraint allows, read from PostgreSQL's catalog. */
class StatusChecksIT extends IntegrationTest {

    @Autowired
    JdbcTemplate jdbc;

    record Column(Class<? extends Enum<?>> type, String table, String column) {}

    @Test
    @DisplayName("every status enum equals its column's CHECK constraint")
    void enumsMatchChecks() {
        List<Column> columns = List.of(
                new Column(SaleStatus.class, "activity", "status"),
                new Column(ReservationStatus.class, "inventory_reservation", "status"),
                new Column(OrderStatus.class, "orders", "status"),
                new Column(OutboxStatus.class, "event_outbox", "status"),
                new Column(TaskStatus.class, "compensation_task", "status"),
                new Column(PaymentStatus.class, "payment_record", "status"),
                new Column(RefundStatus.class, "payment_record", "refund_status"),
                new Column(RepairStatus.class, "repair_task", "status"),
                new Column(AnomalyStatus.class, "reconcile_anomaly", "status"),
                new Column(InboxResult.class, "consumer_inbox", "result_code"));
        for (Column c : columns) {
            Set<String> enumStates = new TreeSet<>(
                    Arrays.stream(c.type().getEnumConstants()).map(Enum::name).toList());
            assertThat(checked(c.table(), c.column()))
                    .as(c.table() + "." + c.column())
                    .isEqualTo(enumStates);
        }
    }

    /** The quoted values of the CHECK constraint of {@code table} that names {@code column} alone. */
    private Set<String> checked(String table, String column) {
        List<String> defs = jdbc.queryForList("""
                SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = ?::regclass AND contype = 'c'
                """, String.class, table);
        Pattern names = Pattern.compile("(?<!\\w)" + column + "(?!\\w)");
        Set<String> out = new TreeSet<>();
        for (String d : defs) {
            if (names.matcher(d).find() && d.contains("ARRAY")) {
                Matcher q = Pattern.compile("'([A-Z_]+)'").matcher(d);
                while (q.find()) {
                    out.add(q.group(1));
                }
            }
        }
        assertThat(out).as("a CHECK on " + table + "." + column).isNotEmpty();
        return out;
    }
}
