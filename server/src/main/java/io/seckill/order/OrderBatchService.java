package io.seckill.order;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.activity.Stock;
import io.seckill.compensation.Rejections;
import io.seckill.config.SeckillProperties;
import io.seckill.db.Outage;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.inbox.Inbox;
import io.seckill.outbox.Outbox;
import io.seckill.outbox.OutboxEvent;
import io.seckill.reservation.OrderCreateRequested;
import io.seckill.reservation.ReservationIds;
import io.seckill.reservation.Reservations;
import io.seckill.state.InboxResult;
import io.seckill.state.ReservationStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The order transaction of DESIGN.md §9.2-9.4, batched: inbox first, reservation upsert and lock,
 * orders with the one-per-user constraint, ledger, reservation CAS, outbox, and one aggregated
 * final-stock decrement per SKU guarded by {@code available_stock >= n} - in ONE transaction for
 * the whole batch, one inbox row and one outcome per message. The decrement comes last, so the hot
 * SKU row is locked only from that UPDATE to the commit; a message processed alone keeps the
 * design's order exactly (decrement, order insert, in-transaction restore for a duplicate user).
 *
 * <p>If the batch cannot be satisfied whole, or anything in it fails, the transaction rolls back
 * and the messages are processed one at a time (where a missing unit becomes a rejection), so a
 * poison message is isolated. A commit whose outcome is unknown is resolved per message_id on a
 * new connection (DESIGN.md §9.8): never compensated, never blindly redone.
 */
@Service
public record OrderBatchService(
        TransactionTemplate tx,
        Inbox inbox,
        Reservations reservations,
        Stock stock,
        OrderRepository orders,
        Outbox outbox,
        Rejections rejections,
        SaleRegistry registry,
        String group,
        String topic,
        MeterRegistry meters,
        Counts counts,
        Clock clock) {

    private static final Logger log = LoggerFactory.getLogger(OrderBatchService.class);
    static final String REASON_SOLD_OUT = "DB_STOCK_EXHAUSTED";
    static final String REASON_DUPLICATE_USER = "DUPLICATE_USER_ORDER";
    /** (activity, sku) keys in one fixed order, so concurrent batches lock hot rows without deadlock. */
    private static final Comparator<Sku> SKU_ORDER =
            Comparator.comparingLong(Sku::activityId).thenComparingLong(Sku::skuId);

    /** A SKU of a sale: the key the batch groups its orders and stock moves by. */
    record Sku(long activityId, long skuId) {}

    /** What the order transaction counts, registered once. */
    record Counts(
            Counter duplicates,
            Counter payloadConflicts,
            Counter stockRejects,
            Counter userConflicts,
            Counter commitUnknown,
            Counter fallbacks,
            Timer queuedToOrder,
            Map<MessageOutcome, Counter> consumed) {

        static Counts of(MeterRegistry meters) {
            Map<MessageOutcome, Counter> consumed = new EnumMap<>(MessageOutcome.class);
            for (MessageOutcome o : MessageOutcome.values()) {
                consumed.put(
                        o, meters.counter("order.consume", "result", o.name().toLowerCase()));
            }
            return new Counts(
                    meters.counter("inbox.duplicate"),
                    meters.counter("inbox.payload.conflict"),
                    meters.counter("db.final.stock.reject"),
                    meters.counter("order.user.unique.conflict"),
                    meters.counter("db.commit.unknown"),
                    meters.counter("order.batch.fallback"),
                    Timer.builder("order.created.latency")
                            .description("QUEUED (Redis admitted the reservation) to ORDER_CREATED (the order "
                                    + "transaction committed)")
                            .serviceLevelObjectives(
                                    Duration.ofMillis(50),
                                    Duration.ofMillis(100),
                                    Duration.ofMillis(250),
                                    Duration.ofMillis(500),
                                    Duration.ofSeconds(1),
                                    Duration.ofSeconds(3),
                                    Duration.ofSeconds(10))
                            .publishPercentileHistogram()
                            .register(meters),
                    consumed);
        }
    }

    @Autowired
    OrderBatchService(
            TransactionTemplate tx,
            Inbox inbox,
            Reservations reservations,
            Stock stock,
            OrderRepository orders,
            Outbox outbox,
            Rejections rejections,
            SaleRegistry registry,
            SeckillProperties props,
            MeterRegistry meters,
            Clock clock) {
        this(
                tx,
                inbox,
                reservations,
                stock,
                orders,
                outbox,
                rejections,
                registry,
                props.mq().orderConsumerGroup(),
                props.mq().orderRequestTopic(),
                meters,
                Counts.of(meters),
                clock);
    }

    /** Processes a batch; every message gets an outcome (RETRY when it could not be settled now). */
    public Map<InboundOrder, MessageOutcome> process(List<InboundOrder> batch) {
        Map<InboundOrder, MessageOutcome> out = new IdentityHashMap<>();
        if (batch.isEmpty()) {
            return out;
        }
        if (batch.size() > 1) {
            try {
                out.putAll(transact(batch, false));
                count(out);
                return out;
            } catch (BatchUnsatisfiable e) {
                log.debug("order.batch_unsatisfiable size={} {}", batch.size(), e.getMessage());
            } catch (RuntimeException e) {
                DatabaseOutage.throwIfSo(e);
                log.warn(
                        "order.batch_failed size={} error_class={}: {}; processing one by one",
                        batch.size(),
                        e.getClass().getName(),
                        e.getMessage());
            }
            counts.fallbacks().increment();
        }
        for (InboundOrder m : batch) {
            try {
                out.putAll(transact(List.of(m), true));
            } catch (RuntimeException e) {
                // the messages settled before this one answer again from the inbox when the batch is tried again
                DatabaseOutage.throwIfSo(e);
                OrderCreateRequested x = m.msg();
                log.error(
                        "order.consume_failed message_id={} reservation_id={} activity_id={} sku_id={} user_id={} "
                                + "consumer_group={} error_class={}",
                        x.messageId(),
                        x.reservationId(),
                        x.activityId(),
                        x.skuId(),
                        x.userId(),
                        group,
                        e.getClass().getName(),
                        e);
                out.put(m, MessageOutcome.RETRY);
            }
        }
        count(out);
        return out;
    }

    private void count(Map<InboundOrder, MessageOutcome> out) {
        long now = clock.millis();
        for (var e : out.entrySet()) {
            counts.consumed().get(e.getValue()).increment();
            if (e.getValue() == MessageOutcome.CREATED) {
                counts.queuedToOrder()
                        .record(
                                Math.max(
                                        0,
                                        now
                                                - e.getKey()
                                                        .msg()
                                                        .reservedAtInstant()
                                                        .toEpochMilli()),
                                TimeUnit.MILLISECONDS);
            }
        }
    }

    /**
     * PostgreSQL is out of service - cannot be reached, or answers but writes nothing ({@link Outage}): no
     * message's fault, so no message's outcome. The caller holds the batch and tries it again once the
     * database serves ({@code OrderCommitQueue}), rather than handing it back to the broker, where every
     * redelivery uses up one of the message's reconsume attempts and a long outage would end in the
     * dead-letter queue.
     */
    public static final class DatabaseOutage extends RuntimeException {
        private final Outage kind;

        private DatabaseOutage(Outage kind, RuntimeException cause) {
            super(cause.getMessage(), cause);
            this.kind = kind;
        }

        public Outage kind() {
            return kind;
        }

        /** Rethrows {@code e} as this when it says PostgreSQL is out of service ({@link Outage}); otherwise returns. */
        static void throwIfSo(RuntimeException e) {
            if (e instanceof DatabaseOutage d) {
                throw d;
            }
            Outage kind = Outage.of(e);
            if (kind != null) {
                throw new DatabaseOutage(kind, e);
            }
        }
    }

    /** Every one of {@code batch} to be redelivered by the broker, counted as such. */
    Map<InboundOrder, MessageOutcome> handBack(List<InboundOrder> batch) {
        Map<InboundOrder, MessageOutcome> out = new IdentityHashMap<>();
        batch.forEach(m -> out.put(m, MessageOutcome.RETRY));
        count(out);
        return out;
    }

    /** Whether PostgreSQL answers now. */
    boolean databaseAnswers() {
        return inbox.answers();
    }

    /** Thrown inside the batch transaction to roll it back when stock cannot cover the batch whole. */
    static final class BatchUnsatisfiable extends RuntimeException {
        BatchUnsatisfiable(String message) {
            super(message, null, false, false);
        }
    }

    private Map<InboundOrder, MessageOutcome> transact(List<InboundOrder> batch, boolean single) {
        AtomicBoolean bodyDone = new AtomicBoolean();
        try {
            Map<InboundOrder, MessageOutcome> result = tx.execute(s -> {
                Map<InboundOrder, MessageOutcome> r = body(batch, single);
                bodyDone.set(true);
                return r;
            });
            Failpoints.hit(Failpoint.DURING_COMMIT_RESPONSE);
            for (var e : result.entrySet()) {
                if (e.getValue() == MessageOutcome.CREATED) {
                    OrderCreateRequested x = e.getKey().msg();
                    log.debug(
                            "order.transaction_committed message_id={} reservation_id={} user_id={}",
                            x.messageId(),
                            x.reservationId(),
                            x.userId());
                }
            }
            return result;
        } catch (RuntimeException e) {
            if (!bodyDone.get()) {
                throw e;
            }
            counts.commitUnknown().increment();
            log.warn(
                    "order.commit_unknown batch={} consumer_group={} error_class={}: {}",
                    batch.size(),
                    group,
                    e.getClass().getName(),
                    e.getMessage());
            return resolveCommitOutcome(batch);
        }
    }

    /**
     * DESIGN.md §9.8: after a commit error, look the messages up by message_id on a new connection.
     * Present with the same hash - committed, acknowledge. Absent - rolled back, redeliver. The
     * database unreachable - unknown: redeliver later, never compensate.
     */
    Map<InboundOrder, MessageOutcome> resolveCommitOutcome(List<InboundOrder> batch) {
        Map<InboundOrder, MessageOutcome> out = new IdentityHashMap<>();
        Map<UUID, Inbox.Entry> found;
        try {
            found = inbox.find(
                    group, batch.stream().map(m -> m.msg().messageId()).toList());
        } catch (RuntimeException e) {
            // unknown until the database answers again; held like any batch that cannot reach it
            DatabaseOutage.throwIfSo(e);
            log.warn(
                    "order.commit_unknown_unresolved batch={} error_class={}: {}",
                    batch.size(),
                    e.getClass().getName(),
                    e.getMessage());
            batch.forEach(m -> out.put(m, MessageOutcome.RETRY));
            return out;
        }
        for (InboundOrder m : batch) {
            Inbox.Entry e = found.get(m.msg().messageId());
            if (e == null || e.result() == InboxResult.PROCESSING) {
                out.put(m, MessageOutcome.RETRY);
            } else if (!Arrays.equals(e.payloadHash(), m.hash())) {
                // DESIGN.md §9.8: the inbox holds this id with another payload - stop, quarantine, a human decides
                out.put(m, quarantineAfterUnknownCommit(m, e.payloadHash()));
            } else {
                out.put(m, MessageOutcome.of(e.result()));
            }
        }
        return out;
    }

    private MessageOutcome quarantineAfterUnknownCommit(InboundOrder m, byte[] knownHash) {
        try {
            return tx.execute(s -> duplicateOrConflict(m, knownHash));
        } catch (RuntimeException ex) {
            log.error(
                    "order.quarantine_failed message_id={} error_class={}",
                    m.msg().messageId(),
                    ex.getClass().getName(),
                    ex);
            return MessageOutcome.RETRY;
        }
    }

    /**
     * The transaction's body, step by step (DESIGN.md §9.2-9.4); every step writes in this transaction, and a
     * step that finds the batch cannot be satisfied whole throws for the rollback and the one-by-one retry.
     */
    private Map<InboundOrder, MessageOutcome> body(List<InboundOrder> batch, boolean single) {
        Outcomes done = new Outcomes();
        Claimed claimed = claimInbox(batch);
        judgeKnown(claimed, done);
        List<InboundOrder> mine = claimed.mine();
        if (mine.isEmpty()) {
            return done.out;
        }
        Locked locked = lockReservations(mine, done);
        Planned planned = planOrders(locked.candidatesBySku(), single);
        Inserted inserted = insertOrders(planned, single, done);
        recordCreated(inserted.movements(), inserted.createdEvents(), locked.rows(), mine);
        rejectAll(planned.soldOut(), inserted.duplicateUsers(), locked.rows(), done);
        expect(
                inbox.finish(group, done.inboxCodes, done.inboxOrders),
                claimed.owned().size(),
                "inbox PROCESSING -> result");
        if (!single) {
            takeBatchStock(inserted.createdBySku());
        }
        return done.out;
    }

    /** Each message's outcome, and what its inbox row is finished with. */
    private static final class Outcomes {
        final Map<InboundOrder, MessageOutcome> out = new IdentityHashMap<>();
        final Map<UUID, InboxResult> inboxCodes = new LinkedHashMap<>();
        final Map<UUID, UUID> inboxOrders = new HashMap<>();

        /** A message judged without an inbox row of its own to finish (a repeat, or one the group already has). */
        void judged(InboundOrder m, MessageOutcome outcome) {
            out.put(m, outcome);
        }

        void settle(InboundOrder m, MessageOutcome outcome, UUID orderId) {
            out.put(m, outcome);
            inboxCodes.put(m.msg().messageId(), outcome.inboxResult());
            if (orderId != null) {
                inboxOrders.put(m.msg().messageId(), orderId);
            }
        }
    }

    /** Step 1's result: the first message of each id, the repeats inside the batch, the ids this run claimed. */
    private record Claimed(Map<UUID, InboundOrder> firstById, List<InboundOrder> repeats, Set<UUID> owned) {

        List<InboundOrder> mine() {
            return owned.stream().map(firstById::get).toList();
        }
    }

    /** Step 1: one inbox claim per message id; repeats inside the batch are judged against the first. */
    private Claimed claimInbox(List<InboundOrder> batch) {
        Map<UUID, InboundOrder> firstById = new TreeMap<>();
        List<InboundOrder> repeats = new ArrayList<>();
        for (InboundOrder m : batch) {
            if (firstById.putIfAbsent(m.msg().messageId(), m) != null) {
                repeats.add(m);
            }
        }
        List<Inbox.Claim> claims = firstById.values().stream()
                .map(m -> new Inbox.Claim(
                        m.msg().messageId(), m.msg().reservationId(), m.msg().requestId(), m.hash()))
                .toList();
        Set<UUID> owned = new LinkedHashSet<>(inbox.claim(group, topic, OrderCreateRequested.EVENT_TYPE, claims));
        Failpoints.hit(Failpoint.AFTER_INBOX_INSERT);
        return new Claimed(firstById, repeats, owned);
    }

    /** Step 2: messages this group already has - the same payload is a duplicate, another is quarantined. */
    private void judgeKnown(Claimed claimed, Outcomes done) {
        List<UUID> known = claimed.firstById().keySet().stream()
                .filter(id -> !claimed.owned().contains(id))
                .toList();
        if (!known.isEmpty()) {
            Map<UUID, Inbox.Entry> existing = inbox.find(group, known);
            for (UUID id : known) {
                Inbox.Entry e = existing.get(id);
                if (e == null) {
                    throw new IllegalStateException("inbox row for " + id + " vanished after conflict");
                }
                InboundOrder m = claimed.firstById().get(id);
                done.judged(m, duplicateOrConflict(m, e.payloadHash()));
            }
        }
        for (InboundOrder m : claimed.repeats()) {
            done.judged(
                    m,
                    duplicateOrConflict(
                            m, claimed.firstById().get(m.msg().messageId()).hash()));
        }
    }

    /** Step 3's result: the rows PostgreSQL had, locked, and the messages that may still make an order, per SKU. */
    private record Locked(Map<UUID, Reservations.Row> rows, Map<Sku, List<InboundOrder>> candidatesBySku) {}

    /**
     * Step 3: reservation rows - lock those PostgreSQL has (a tombstone, an earlier outcome) and settle the
     * messages they already decide; the others are new and are inserted once, in their decided state, by the
     * later steps (DESIGN.md §9.3 "upsert and lock").
     */
    private Locked lockReservations(List<InboundOrder> mine, Outcomes done) {
        Map<UUID, Reservations.Row> rows = new HashMap<>();
        for (Reservations.Row r : reservations.lock(
                mine.stream().map(m -> m.msg().reservationId()).toList())) {
            rows.put(r.reservationId(), r);
        }
        Map<Sku, List<InboundOrder>> candidatesBySku = new TreeMap<>(SKU_ORDER);
        for (InboundOrder m : mine) {
            Reservations.Row row = rows.get(m.msg().reservationId());
            if (row != null && !row.messageId().equals(m.msg().messageId())) {
                throw new IllegalStateException("message " + m.msg().messageId() + " names reservation "
                        + row.reservationId() + " whose message is " + row.messageId());
            }
            ReservationStatus status = row == null ? ReservationStatus.RESERVED : row.status();
            switch (status) {
                case RESERVED ->
                    candidatesBySku
                            .computeIfAbsent(
                                    new Sku(m.msg().activityId(), m.msg().skuId()), k -> new ArrayList<>())
                            .add(m);
                case ORDER_CREATED -> done.settle(m, MessageOutcome.CREATED, row.orderId());
                default -> done.settle(m, MessageOutcome.LATE_REJECTED, null);
            }
        }
        return new Locked(rows, candidatesBySku);
    }

    /** Step 4's result: the messages refused for stock (one alone), and the orders to insert. */
    private record Planned(
            List<InboundOrder> soldOut,
            List<OrderRepository.NewOrder> newOrders,
            Map<UUID, InboundOrder> byReservation) {}

    /**
     * Step 4: final stock and the orders to insert. One message alone (DESIGN.md §9.3 order): the guarded
     * decrement first, a missing unit is a rejection. A batch: the decrement runs last ({@link #takeBatchStock}),
     * so the hot row is locked only from that UPDATE to the commit instead of for the whole transaction.
     */
    private Planned planOrders(Map<Sku, List<InboundOrder>> candidatesBySku, boolean single) {
        List<InboundOrder> soldOut = new ArrayList<>();
        List<OrderRepository.NewOrder> newOrders = new ArrayList<>();
        Map<UUID, InboundOrder> byReservation = new HashMap<>();
        for (var e : candidatesBySku.entrySet()) {
            long activityId = e.getKey().activityId();
            long skuId = e.getKey().skuId();
            List<InboundOrder> group = e.getValue();
            if (single) {
                if (!stock.occupy(activityId, skuId, group.size())) {
                    soldOut.addAll(group);
                    continue;
                }
                Failpoints.hit(Failpoint.AFTER_PG_STOCK_DECREMENT);
            }
            Activity activity = registry.find(activityId)
                    .orElseThrow(() -> new IllegalStateException("order message for unknown activity " + activityId));
            Activity.Sku sku = activity.sku(skuId);
            if (sku == null) {
                throw new IllegalStateException("order message for unknown sku " + activityId + "/" + skuId);
            }
            for (InboundOrder m : group) {
                OrderCreateRequested x = m.msg();
                newOrders.add(new OrderRepository.NewOrder(
                        ReservationIds.derived("ORDER", x.reservationId()),
                        activityId,
                        skuId,
                        x.userId(),
                        x.requestId(),
                        x.reservationId(),
                        sku.price(),
                        activity.paymentTimeoutSeconds()));
                byReservation.put(x.reservationId(), m);
            }
        }
        return new Planned(soldOut, newOrders, byReservation);
    }

    /** Step 5's result: users who already had an order, and what the created orders move and announce. */
    private record Inserted(
            List<InboundOrder> duplicateUsers,
            Map<Sku, Integer> createdBySku,
            List<Stock.Movement> movements,
            List<OutboxEvent> createdEvents) {}

    /**
     * Step 5: the orders, where the unique (activity, sku, user) constraint skips a user who already has one; a
     * message processed alone puts the unit it took back in this same transaction (DESIGN.md §9.3).
     */
    private Inserted insertOrders(Planned planned, boolean single, Outcomes done) {
        List<OrderRepository.NewOrder> newOrders = planned.newOrders();
        Map<UUID, UUID> created = newOrders.isEmpty() ? Map.of() : orders.insert(newOrders);
        Failpoints.hit(Failpoint.AFTER_ORDER_INSERT);
        List<InboundOrder> duplicateUsers = new ArrayList<>();
        Map<Sku, Integer> duplicatesBySku = new TreeMap<>(SKU_ORDER);
        Map<Sku, Integer> createdBySku = new TreeMap<>(SKU_ORDER);
        List<Stock.Movement> movements = new ArrayList<>();
        List<OutboxEvent> createdEvents = new ArrayList<>();
        for (OrderRepository.NewOrder o : newOrders) {
            InboundOrder m = planned.byReservation().get(o.reservationId());
            UUID orderId = created.get(o.reservationId());
            Sku sku = new Sku(o.activityId(), o.skuId());
            if (orderId == null) {
                duplicateUsers.add(m);
                duplicatesBySku.merge(sku, 1, Integer::sum);
                continue;
            }
            createdBySku.merge(sku, 1, Integer::sum);
            movements.add(new Stock.Movement(o.activityId(), o.skuId(), o.reservationId(), orderId));
            createdEvents.add(OutboxEvent.orderCreated(
                            orderId, o.reservationId(), o.activityId(), o.skuId(), o.userId(), o.amount())
                    .tracedBy(m.traceparent()));
            done.settle(m, MessageOutcome.CREATED, orderId);
        }
        if (single) {
            for (var e : duplicatesBySku.entrySet()) {
                if (!stock.restore(e.getKey().activityId(), e.getKey().skuId(), e.getValue())) {
                    throw new IllegalStateException("could not restore " + e.getValue() + " units of " + e.getKey());
                }
            }
        }
        return new Inserted(duplicateUsers, createdBySku, movements, createdEvents);
    }

    /**
     * Step 6: what the created orders change - the ledger's movements, their reservations as ORDER_CREATED (moved
     * from RESERVED where PostgreSQL had the row, inserted settled where it did not), and their events.
     */
    private void recordCreated(
            List<Stock.Movement> movements,
            List<OutboxEvent> createdEvents,
            Map<UUID, Reservations.Row> rows,
            List<InboundOrder> mine) {
        stock.recordOccupied(movements);
        if (!movements.isEmpty()) {
            Map<UUID, UUID> moved = new LinkedHashMap<>();
            Map<UUID, UUID> fresh = new HashMap<>();
            for (Stock.Movement mv : movements) {
                (rows.containsKey(mv.reservationId()) ? moved : fresh).put(mv.reservationId(), mv.orderId());
            }
            if (!moved.isEmpty()) {
                expect(reservations.markOrderCreated(moved), moved.size(), "RESERVED -> ORDER_CREATED");
            }
            reservations.insertSettled(
                    mine.stream()
                            .map(InboundOrder::msg)
                            .filter(x -> fresh.containsKey(x.reservationId()))
                            .toList(),
                    ReservationStatus.ORDER_CREATED,
                    null,
                    fresh);
        }
        outbox.append("ORDER", OutboxEvent.ORDER_CREATED, createdEvents);
    }

    /** Step 7: rejections - a durable decision, a compensation task and an event, in this transaction. */
    private void rejectAll(
            List<InboundOrder> soldOut,
            List<InboundOrder> duplicateUsers,
            Map<UUID, Reservations.Row> rows,
            Outcomes done) {
        reject(soldOut, REASON_SOLD_OUT, MessageOutcome.REJECTED_SOLD_OUT, rows, done);
        counts.stockRejects().increment(soldOut.size());
        reject(duplicateUsers, REASON_DUPLICATE_USER, MessageOutcome.REJECTED_DUPLICATE_USER, rows, done);
        counts.userConflicts().increment(duplicateUsers.size());
    }

    /**
     * Step 9 (a batch only): the batch takes its units last, one guarded decrement per SKU
     * ({@code available_stock >= n}) in a fixed order; a SKU that cannot cover its orders whole rolls the whole
     * batch back, and its messages go one by one.
     */
    private void takeBatchStock(Map<Sku, Integer> createdBySku) {
        for (var e : createdBySku.entrySet()) {
            if (!stock.occupy(e.getKey().activityId(), e.getKey().skuId(), e.getValue())) {
                throw new BatchUnsatisfiable("sku " + e.getKey() + " cannot cover " + e.getValue());
            }
            Failpoints.hit(Failpoint.AFTER_PG_STOCK_DECREMENT);
        }
    }

    private void reject(
            List<InboundOrder> rejected,
            String reason,
            MessageOutcome outcome,
            Map<UUID, Reservations.Row> rows,
            Outcomes done) {
        if (rejected.isEmpty()) {
            return;
        }
        List<UUID> ids = rejected.stream().map(m -> m.msg().reservationId()).toList();
        List<UUID> known = ids.stream().filter(rows::containsKey).toList();
        if (!known.isEmpty()) {
            expect(reservations.markRejected(known, reason), known.size(), "RESERVED -> ORDER_REJECTED");
        }
        reservations.insertSettled(
                rejected.stream()
                        .map(InboundOrder::msg)
                        .filter(x -> !rows.containsKey(x.reservationId()))
                        .toList(),
                ReservationStatus.ORDER_REJECTED,
                reason,
                Map.of());
        rejections.compensate(
                rejected.stream()
                        .map(m -> new Rejections.Rejected(
                                m.msg().reservationId(),
                                m.msg().activityId(),
                                m.msg().skuId(),
                                m.msg().userId()))
                        .toList(),
                reason);
        for (InboundOrder m : rejected) {
            OrderCreateRequested x = m.msg();
            log.info(
                    "order.rejected message_id={} reservation_id={} activity_id={} sku_id={} user_id={} reason={}",
                    x.messageId(),
                    x.reservationId(),
                    x.activityId(),
                    x.skuId(),
                    x.userId(),
                    reason);
            done.settle(m, outcome, null);
        }
    }

    private MessageOutcome duplicateOrConflict(InboundOrder m, byte[] knownHash) {
        if (Arrays.equals(knownHash, m.hash())) {
            counts.duplicates().increment();
            log.debug(
                    "order.consumer_duplicate message_id={} reservation_id={} consumer_group={}",
                    m.msg().messageId(),
                    m.msg().reservationId(),
                    group);
            return MessageOutcome.DUPLICATE;
        }
        counts.payloadConflicts().increment();
        log.error(
                "order.payload_conflict message_id={} reservation_id={} consumer_group={}: same message_id, different "
                        + "payload; quarantined",
                m.msg().messageId(),
                m.msg().reservationId(),
                group);
        inbox.quarantine(
                group,
                topic,
                m.msg().messageId().toString(),
                m.brokerMsgId(),
                "PAYLOAD_CONFLICT",
                m.body(),
                m.hash(),
                knownHash);
        return MessageOutcome.QUARANTINED;
    }

    private static void expect(int actual, int expected, String what) {
        if (actual != expected) {
            throw new IllegalStateException(what + ": expected " + expected + " rows, got " + actual);
        }
    }
}
