package io.seckill.order;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.db.Outage;
import io.seckill.worker.StopWait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit for the order consumer. The broker hands the consumer one short list per queue pull,
 * so while messages trickle in (a few per pull, spread over many queues) each list would be its own
 * order transaction - a commit and a hot-row update for five orders - and under load the consumer
 * falls behind on commits, not on work. Here the listener threads only queue their lists; {@code
 * committers} threads (the consumer's cap on concurrent PostgreSQL transactions) each take every
 * list queued so far, up to {@code maxBatch} orders, and settle them in one transaction. A list's
 * caller gets its own messages' outcomes back once they are durable, exactly as if its list had been
 * the batch, so acknowledging the broker stays per message and after the commit.
 *
 * <p>Nothing waits for a batch to fill: a committer takes what is there. Stopped, the committers
 * settle what was queued before they go, and a caller that comes later settles its own list itself.
 */
final class OrderCommitQueue {

    private static final Logger log = LoggerFactory.getLogger(OrderCommitQueue.class);

    private record Pending(List<InboundOrder> orders, CompletableFuture<Map<InboundOrder, MessageOutcome>> done) {}

    private final OrderBatchService service;
    private final DistributionSummary groupSizes;
    private final int maxBatch;
    private final int committers;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;
    /** A held group that fails this often while the database answers its probe is handed back to the broker. */
    static final int MAX_FAILURES_WHILE_ANSWERING = 5;
    /** How long a stop waits for the committers, all of them together. */
    static final Duration STOP_WAIT = Duration.ofSeconds(30);

    private final Duration stopWait;
    /** A held group is tried again after 0.2 s, the pause doubling to 5 s. */
    private static final long PAUSE_MIN_MS = 200;

    private static final long PAUSE_MAX_MS = 5_000;

    private final AtomicInteger held = new AtomicInteger();
    private final Counter holds;
    private final Counter released;

    OrderCommitQueue(OrderBatchService service, int maxBatch, int committers, MeterRegistry meters) {
        this(service, maxBatch, committers, meters, STOP_WAIT);
    }

    OrderCommitQueue(OrderBatchService service, int maxBatch, int committers, MeterRegistry meters, Duration stopWait) {
        this.service = service;
        this.stopWait = stopWait;
        this.groupSizes = DistributionSummary.builder("order.commit.batch.size")
                .description("orders settled in one order transaction (the lists of several deliveries together)")
                .register(meters);
        this.maxBatch = maxBatch;
        this.committers = committers;
        this.holds = Counter.builder("order.commit.held")
                .description(
                        "order groups held because PostgreSQL could not be reached or would not write (tried again once it serves)")
                .register(meters);
        this.released = Counter.builder("order.commit.hold_released")
                .description("held order groups handed back to the broker: they kept failing while PostgreSQL answered")
                .register(meters);
        Gauge.builder("order.commit.holding", held, AtomicInteger::get)
                .description("order groups held right now, waiting for PostgreSQL to serve")
                .register(meters);
    }

    synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        threads.clear();
        for (int i = 0; i < committers; i++) {
            threads.add(Thread.ofPlatform().name("order-commit-" + i).start(this::commitLoop));
        }
    }

    /**
     * Stops taking new lists; returns once everything queued before has been settled, or after the stop
     * wait ({@link #STOP_WAIT}) for all the committers together: one still in a transaction PostgreSQL
     * does not answer is left to end as it will (its messages are not acknowledged and come again).
     */
    void stop() {
        List<Thread> stopping;
        synchronized (this) {
            running = false;
            stopping = List.copyOf(threads);
        }
        for (Thread t : StopWait.join(stopping, stopWait)) {
            log.warn(
                    "order.commit.stop_unfinished thread={} waited_ms={} queued_lists={}",
                    t.getName(),
                    stopWait.toMillis(),
                    queue.size());
        }
    }

    /** The outcome of each of {@code orders}, once settled (a message missing from the map is to be retried). */
    Map<InboundOrder, MessageOutcome> process(List<InboundOrder> orders) throws InterruptedException {
        if (orders.isEmpty()) {
            return Map.of();
        }
        if (!running) {
            return service.process(orders);
        }
        Pending p = new Pending(orders, new CompletableFuture<>());
        queue.put(p);
        if (!running && queue.remove(p)) {
            // stopped between the check above and the put, and no committer took it: settle it here
            return service.process(orders);
        }
        try {
            return p.done().get();
        } catch (ExecutionException e) {
            // the batch failed as a whole (OrderBatchService settles per message, so this is not expected): every
            // message of this list is redelivered, and the inbox makes the settled ones harmless duplicates
            log.error(
                    "order.commit_group_failed orders={} error_class={}",
                    orders.size(),
                    e.getCause().getClass().getName(),
                    e.getCause());
            return Map.of();
        }
    }

    private void commitLoop() {
        while (running || !queue.isEmpty()) {
            List<Pending> group;
            try {
                group = take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (!group.isEmpty()) {
                settle(group);
            }
        }
    }

    /**
     * The first list queued (waiting briefly for one), then every next list that still fits in {@code
     * maxBatch} - under one lock, so two committers never split a peeked list between them.
     */
    private List<Pending> take() throws InterruptedException {
        synchronized (queue) {
            Pending first = queue.poll(100, TimeUnit.MILLISECONDS);
            if (first == null) {
                return List.of();
            }
            List<Pending> group = new ArrayList<>();
            group.add(first);
            int size = first.orders().size();
            Pending next;
            while ((next = queue.peek()) != null && size + next.orders().size() <= maxBatch) {
                group.add(queue.remove());
                size += next.orders().size();
            }
            return group;
        }
    }

    /**
     * The group's outcomes. While PostgreSQL is out of service the group is held here and tried again once
     * the database serves: its listeners wait, its messages stay unacknowledged on the broker, where they
     * are backlog the deadline sweeper sees and pauses for (DESIGN.md §11.1 row 14), and no redelivery
     * uses up a reconsume attempt. Unreachable, it is tried again once {@code SELECT 1} answers; answering
     * but not writing (read-only, disk or memory full), the group's own transaction is the probe, tried
     * after a growing pause. Stopping hands the group back to the broker (no outcomes).
     */
    private Map<InboundOrder, MessageOutcome> settleOrHold(List<InboundOrder> all) {
        long heldSince = 0;
        int failedWhileAnswering = 0;
        long pauseMs = PAUSE_MIN_MS;
        while (true) {
            try {
                Map<InboundOrder, MessageOutcome> outcomes = service.process(all);
                if (heldSince != 0) {
                    held.decrementAndGet();
                    log.info(
                            "order.database_back orders={} held_ms={}",
                            all.size(),
                            (System.nanoTime() - heldSince) / 1_000_000);
                }
                return outcomes;
            } catch (OrderBatchService.DatabaseOutage e) {
                boolean waited;
                if (heldSince == 0) {
                    heldSince = System.nanoTime();
                    held.incrementAndGet();
                    holds.increment();
                    log.warn(
                            "order.database_out orders={} outage={} error_class={}: {}; holding them until it serves",
                            all.size(),
                            e.kind(),
                            e.getCause().getClass().getName(),
                            e.getMessage());
                } else if (e.kind() == Outage.UNREACHABLE && ++failedWhileAnswering >= MAX_FAILURES_WHILE_ANSWERING) {
                    // the database answers, yet this group keeps failing as if it did not: not an outage this hold
                    // can wait out - the group goes back to the broker, whose redeliveries are bounded and end in the
                    // DLQ
                    held.decrementAndGet();
                    released.increment();
                    log.error(
                            "order.hold_released orders={} attempts={} error_class={}: {}",
                            all.size(),
                            failedWhileAnswering,
                            e.getCause().getClass().getName(),
                            e.getMessage(),
                            e);
                    return service.handBack(all);
                }
                if (e.kind() == Outage.UNREACHABLE) {
                    waited = awaitDatabase();
                } else {
                    waited = pause(pauseMs);
                    pauseMs = Math.min(pauseMs * 2, PAUSE_MAX_MS);
                }
                if (!waited) {
                    held.decrementAndGet();
                    return service.handBack(all);
                }
            }
        }
    }

    /** Waits, probing after a growing pause, until PostgreSQL answers; false when stopping. */
    private boolean awaitDatabase() {
        for (long pauseMs = PAUSE_MIN_MS; pause(pauseMs); pauseMs = Math.min(pauseMs * 2, PAUSE_MAX_MS)) {
            if (service.databaseAnswers()) {
                return true;
            }
        }
        return false;
    }

    /** Sleeps {@code ms} unless stopping; false when stopping or interrupted. */
    private boolean pause(long ms) {
        if (!running) {
            return false;
        }
        try {
            TimeUnit.MILLISECONDS.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return running;
    }

    private void settle(List<Pending> group) {
        List<InboundOrder> all = new ArrayList<>();
        group.forEach(p -> all.addAll(p.orders()));
        groupSizes.record(all.size());
        try {
            Map<InboundOrder, MessageOutcome> outcomes = settleOrHold(all);
            for (Pending p : group) {
                Map<InboundOrder, MessageOutcome> mine = new IdentityHashMap<>();
                for (InboundOrder o : p.orders()) {
                    MessageOutcome outcome = outcomes.get(o);
                    if (outcome != null) {
                        mine.put(o, outcome);
                    }
                }
                p.done().complete(mine);
            }
        } catch (RuntimeException | Error e) {
            group.forEach(p -> p.done().completeExceptionally(e));
        }
    }
}
