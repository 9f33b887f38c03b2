package io.seckill.state;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Every state machine's moves in one table: from each state, the states it may move to. A state that
 * moves nowhere is final. The SQL that makes a move guards on the same sources
 * ({@link Lifecycle#sources}); a test holds the table to the guards and to the CHECK constraints.
 */
final class Transitions {

    private static final Map<Class<?>, Map<?, ? extends Set<?>>> TABLES = Map.of(
            SaleStatus.class,
                    new Table<>(SaleStatus.class)
                            .from(SaleStatus.DRAFT)
                            .to(SaleStatus.WARMED)
                            .from(SaleStatus.WARMED)
                            .to(SaleStatus.WARMED, SaleStatus.OPEN)
                            .from(SaleStatus.OPEN, SaleStatus.CLOSED)
                            .to(SaleStatus.OPEN, SaleStatus.CLOSED)
                            .moves,
            ReservationStatus.class,
                    new Table<>(ReservationStatus.class)
                            .from(ReservationStatus.RESERVED)
                            .to(
                                    ReservationStatus.ORDER_CREATED,
                                    ReservationStatus.ORDER_REJECTED,
                                    ReservationStatus.MANUAL_REVIEW)
                            .from(ReservationStatus.ORDER_CREATED)
                            .to(ReservationStatus.CANCELLED)
                            .from(ReservationStatus.ORDER_REJECTED)
                            .to(ReservationStatus.COMPENSATING, ReservationStatus.MANUAL_REVIEW)
                            .from(ReservationStatus.COMPENSATING)
                            .to(ReservationStatus.COMPENSATED, ReservationStatus.MANUAL_REVIEW)
                            .from(ReservationStatus.MANUAL_REVIEW)
                            .to(
                                    ReservationStatus.RESERVED,
                                    ReservationStatus.ORDER_REJECTED,
                                    ReservationStatus.COMPENSATING)
                            .moves,
            InboxResult.class,
                    new Table<>(InboxResult.class)
                            .from(InboxResult.PROCESSING)
                            .to(
                                    InboxResult.ORDER_CREATED,
                                    InboxResult.REJECTED_SOLD_OUT,
                                    InboxResult.REJECTED_DUPLICATE_USER,
                                    InboxResult.LATE_REJECTED)
                            .moves,
            OrderStatus.class,
                    new Table<>(OrderStatus.class)
                            .from(OrderStatus.CREATED)
                            .to(OrderStatus.PAYING, OrderStatus.PAID, OrderStatus.CANCEL_PENDING)
                            .from(OrderStatus.PAYING)
                            .to(OrderStatus.PAID, OrderStatus.CANCEL_PENDING)
                            .from(OrderStatus.CANCEL_PENDING)
                            .to(OrderStatus.PAID, OrderStatus.CANCELLED)
                            .moves,
            PaymentStatus.class, new Table<>(PaymentStatus.class).moves,
            RefundStatus.class,
                    new Table<>(RefundStatus.class).from(RefundStatus.REFUNDING).to(RefundStatus.REFUNDED).moves,
            OutboxStatus.class,
                    new Table<>(OutboxStatus.class)
                            .from(OutboxStatus.PENDING, OutboxStatus.RETRY)
                            .to(OutboxStatus.SENDING)
                            .from(OutboxStatus.SENDING)
                            .to(OutboxStatus.SENDING, OutboxStatus.SENT, OutboxStatus.RETRY, OutboxStatus.MANUAL)
                            .moves,
            TaskStatus.class,
                    new Table<>(TaskStatus.class)
                            .from(TaskStatus.PENDING, TaskStatus.RETRY)
                            .to(TaskStatus.CLAIMED, TaskStatus.MANUAL)
                            .from(TaskStatus.CLAIMED)
                            .to(TaskStatus.CLAIMED, TaskStatus.APPLIED, TaskStatus.RETRY, TaskStatus.MANUAL)
                            .from(TaskStatus.MANUAL)
                            .to(TaskStatus.RETRY)
                            .moves,
            RepairStatus.class,
                    new Table<>(RepairStatus.class)
                            .from(RepairStatus.PENDING, RepairStatus.FAILED)
                            .to(RepairStatus.RUNNING)
                            .from(RepairStatus.RUNNING)
                            .to(RepairStatus.RUNNING, RepairStatus.DONE, RepairStatus.FAILED)
                            .moves,
            AnomalyStatus.class,
                    new Table<>(AnomalyStatus.class).from(AnomalyStatus.OPEN).to(AnomalyStatus.RESOLVED).moves);

    private Transitions() {}

    /** The states {@code state} may move to (unmodifiable; empty for a final state). */
    @SuppressWarnings("unchecked")
    static <S extends Enum<S> & Lifecycle<S>> Set<S> next(S state) {
        Map<?, ? extends Set<?>> table = TABLES.get(state.getDeclaringClass());
        if (table == null) {
            throw new IllegalStateException(
                    "no transitions declared for " + state.getDeclaringClass().getName());
        }
        return (Set<S>) table.get(state);
    }

    /** One machine's table under construction; every state starts final, and a state's moves are given once. */
    private static final class Table<S extends Enum<S>> {
        final Map<S, Set<S>> moves;
        private final EnumSet<S> given;
        private EnumSet<S> sources;

        Table(Class<S> type) {
            moves = new EnumMap<>(type);
            given = EnumSet.noneOf(type);
            for (S s : type.getEnumConstants()) {
                moves.put(s, Collections.unmodifiableSet(EnumSet.noneOf(type)));
            }
        }

        @SafeVarargs
        final Table<S> from(S first, S... more) {
            sources = EnumSet.of(first, more);
            return this;
        }

        @SafeVarargs
        final Table<S> to(S first, S... more) {
            Set<S> targets = Collections.unmodifiableSet(EnumSet.of(first, more));
            for (S s : sources) {
                if (!given.add(s)) {
                    throw new IllegalStateException(
                            "the moves of " + s.getDeclaringClass().getSimpleName() + "." + s + " are given twice");
                }
                moves.put(s, targets);
            }
            return this;
        }
    }
}
