package io.seckill.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.SqlConstants;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The transitions each status enum allows and the guards of the SQL that makes the moves are the
 * same rule: every guarded UPDATE moves only from states that may move to its target, and every
 * transition the enum allows is made by some statement (no dead rule on either side).
 */
class StateGuardsTest {

    /** A status column, its enum, and the repository that owns the table. */
    record Machine(Class<? extends Enum<?>> type, String table, String column, Class<?> owner) {
        @Override
        public String toString() {
            return table + "." + column;
        }
    }

    static List<Machine> machines() {
        return List.of(
                new Machine(
                        ReservationStatus.class,
                        "inventory_reservation",
                        "status",
                        owner("io.seckill.reservation.ReservationRepository")),
                new Machine(OrderStatus.class, "orders", "status", owner("io.seckill.order.OrderRepository")),
                new Machine(OutboxStatus.class, "event_outbox", "status", owner("io.seckill.outbox.OutboxRepository")),
                new Machine(
                        TaskStatus.class,
                        "compensation_task",
                        "status",
                        owner("io.seckill.compensation.CompensationTaskRepository")),
                new Machine(
                        RefundStatus.class,
                        "payment_record",
                        "refund_status",
                        owner("io.seckill.payment.PaymentRepository")),
                new Machine(
                        RepairStatus.class, "repair_task", "status", owner("io.seckill.reconcile.RepairRepository")),
                new Machine(
                        AnomalyStatus.class,
                        "reconcile_anomaly",
                        "status",
                        owner("io.seckill.anomaly.AnomalyRepository")));
    }

    /** One move a statement makes: from each guard state to each target. */
    record Move(String from, String to) {
        @Override
        public String toString() {
            return from + "->" + to;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("machines")
    @DisplayName("each guarded UPDATE moves only along the enum's transitions, and every transition has its statement")
    void guardsAndTransitionsAgree(Machine m) {
        Set<Move> made = new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
        List<String> unguarded = new ArrayList<>();
        for (SqlConstants.Statement s : SqlConstants.of(m.owner())) {
            if (!m.table().equals(s.table()) || !s.sql().trim().matches("(?s)^(WITH|UPDATE).*")) {
                continue;
            }
            List<String> targets = targets(s.sql(), m.column());
            if (targets.isEmpty()) {
                continue;
            }
            Set<String> sources = sources(s.sql(), m.column());
            if (sources.isEmpty() && !s.sql().contains(m.column() + " IS NULL")) {
                unguarded.add(s.name());
            }
            for (String from : sources) {
                for (String to : targets) {
                    made.add(new Move(from, to));
                }
            }
        }
        Set<Move> allowed = new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
        for (Enum<?> e : m.type().getEnumConstants()) {
            for (Object to : ((Lifecycle<?>) e).next()) {
                allowed.add(new Move(e.name(), ((Enum<?>) to).name()));
            }
        }
        assertThat(unguarded)
                .as("status updates without a guard on the current status")
                .isEmpty();
        assertThat(made)
                .as("moves the SQL of " + m.owner().getSimpleName() + " makes")
                .isEqualTo(allowed);
    }

    @org.junit.jupiter.api.Test
    @DisplayName("a sale moves only to a state some state may move to, and warm, open and close repeat harmlessly")
    void saleStatus() {
        for (SaleStatus s : SaleStatus.values()) {
            assertThat(s == SaleStatus.DRAFT
                            || !Lifecycle.sources(SaleStatus.class, s).isEmpty())
                    .as(s.name())
                    .isTrue();
        }
        assertThat(Lifecycle.sources(SaleStatus.class, SaleStatus.OPEN))
                .containsExactlyInAnyOrder(SaleStatus.WARMED, SaleStatus.OPEN, SaleStatus.CLOSED);
        assertThat(Lifecycle.sources(SaleStatus.class, SaleStatus.WARMED))
                .doesNotContain(SaleStatus.OPEN, SaleStatus.CLOSED);
        assertThat(EnumSet.allOf(OrderStatus.class).stream().filter(Lifecycle::isFinal))
                .containsExactlyInAnyOrder(OrderStatus.PAID, OrderStatus.CANCELLED);
    }

    private static final Pattern SET_CLAUSE = Pattern.compile("(?s)\\bSET\\b(.*?)(?=\\bFROM\\b|\\bWHERE\\b)");

    /** {@code SET col = 'X'}, or {@code SET col = ?} with {@code AND ? IN ('X', 'Y')}. */
    static List<String> targets(String sql, String column) {
        List<String> out = new ArrayList<>();
        Matcher set = SET_CLAUSE.matcher(sql);
        if (!set.find()) {
            return out;
        }
        Matcher m = Pattern.compile("(?:^|,)\\s*" + column + "\\s*=\\s*('([A-Z_]+)'|\\?)")
                .matcher(set.group(1));
        if (!m.find()) {
            return out;
        }
        if (m.group(2) != null) {
            out.add(m.group(2));
        } else {
            Matcher in = Pattern.compile("AND \\? IN \\(([^)]*)\\)").matcher(sql);
            if (in.find()) {
                out.addAll(quoted(in.group(1)));
            }
        }
        return out;
    }

    /** Every state the statement requires of the column, outside its SET clause and EXISTS subqueries. */
    static Set<String> sources(String sql, String column) {
        String guards = SET_CLAUSE
                .matcher(sql.replaceAll("EXISTS\\s*\\(SELECT[^()]*\\)", "EXISTS ()"))
                .replaceAll("");
        Set<String> out = new LinkedHashSet<>();
        Matcher eq = Pattern.compile("(?<![\\w])(?:\\w+\\.)?" + column + "\\s*=\\s*'([A-Z_]+)'")
                .matcher(guards);
        while (eq.find()) {
            out.add(eq.group(1));
        }
        Matcher in = Pattern.compile("(?<![\\w])(?:\\w+\\.)?" + column + "\\s+IN\\s*\\(([^)]*)\\)")
                .matcher(guards);
        while (in.find()) {
            out.addAll(quoted(in.group(1)));
        }
        return out;
    }

    /** A repository by name: a feature behind its service keeps its repository package-private. */
    private static Class<?> owner(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new AssertionError(name + " is gone", e);
        }
    }

    private static List<String> quoted(String list) {
        List<String> out = new ArrayList<>();
        Matcher q = Pattern.compile("'([A-Z_]+)'").matcher(list);
        while (q.find()) {
            out.add(q.group(1));
        }
        return out;
    }
}
