package io.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.seckill.support.IntegrationTest;
import io.seckill.support.Messages;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** The order consumer's group commit: deliveries queued while a transaction runs are settled together. */
class OrderCommitQueueIT extends IntegrationTest {

    @Autowired
    OrderBatchService batches;

    @Autowired
    DataSource dataSource;

    @Test
    @DisplayName(
            "lists queued while the committer is busy are settled in one transaction; each caller gets its own outcomes")
    void queuedListsShareOneTransaction() throws Exception {
        long activityId = openSale(50);
        List<List<InboundOrder>> lists = new ArrayList<>();
        for (int l = 0; l < 6; l++) {
            List<InboundOrder> list = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                long user = 7_000 + l * 10 + i;
                list.add(Messages.inbound(
                        Messages.forReservation(redis, activityId, 1, reservationId(user, activityId))));
            }
            lists.add(list);
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        OrderCommitQueue queue = new OrderCommitQueue(batches, 50, 1, registry);
        queue.start();
        List<CompletableFuture<Map<InboundOrder, MessageOutcome>>> results = new ArrayList<>();
        try (Connection stall = dataSource.getConnection();
                Statement s = stall.createStatement()) {
            // every order transaction begins with its inbox claim: the first list's transaction waits on this lock
            // while the five others queue behind it
            stall.setAutoCommit(false);
            s.execute("LOCK TABLE consumer_inbox IN ACCESS EXCLUSIVE MODE");
            results.add(submit(queue, lists.get(0)));
            TimeUnit.MILLISECONDS.sleep(300);
            for (List<InboundOrder> list : lists.subList(1, 6)) {
                results.add(submit(queue, list));
            }
            TimeUnit.MILLISECONDS.sleep(500);
            assertThat(results).noneMatch(CompletableFuture::isDone);
            stall.commit();
        }
        for (int l = 0; l < 6; l++) {
            Map<InboundOrder, MessageOutcome> mine = results.get(l).get(30, TimeUnit.SECONDS);
            assertThat(mine.keySet())
                    .as("list %d gets exactly its own messages back", l)
                    .containsExactlyInAnyOrderElementsOf(lists.get(l));
            // the application's own consumer may have settled a message first: then this one is its duplicate
            assertThat(mine.values()).allMatch(o -> o == MessageOutcome.CREATED || o == MessageOutcome.DUPLICATE);
        }
        queue.stop();
        DistributionSummary groups = registry.find("order.commit.batch.size").summary();
        assertThat(groups.count())
                .as("the first list alone, then the five queued behind it together")
                .isEqualTo(2);
        assertThat(groups.totalAmount()).isEqualTo(18);
        for (List<InboundOrder> list : lists) {
            for (InboundOrder o : list) {
                assertThat(count(
                                "SELECT count(*) FROM orders WHERE reservation_id = ?",
                                o.msg().reservationId()))
                        .as("one order for reservation %s", o.msg().reservationId())
                        .isEqualTo(1);
            }
        }
    }

    @Test
    @DisplayName("a list that comes after the queue stopped is settled by its caller, not left waiting")
    void afterStopTheCallerSettlesItself() throws Exception {
        long activityId = openSale(5);
        InboundOrder o =
                Messages.inbound(Messages.forReservation(redis, activityId, 1, reservationId(7_500, activityId)));
        OrderCommitQueue queue = new OrderCommitQueue(batches, 50, 1, new SimpleMeterRegistry());
        queue.start();
        queue.stop();
        assertThat(queue.process(List.of(o))).containsKey(o);
    }

    @Test
    @DisplayName("a stop waits for its committers together: two held in transactions PostgreSQL keeps waiting hold it "
            + "for one stop wait, not one each; their lists are settled once PostgreSQL goes on")
    void stopWaitsForTheCommittersTogether() throws Exception {
        long activityId = openSale(5);
        List<InboundOrder> first = List.of(
                Messages.inbound(Messages.forReservation(redis, activityId, 1, reservationId(7_600, activityId))));
        List<InboundOrder> second = List.of(
                Messages.inbound(Messages.forReservation(redis, activityId, 1, reservationId(7_601, activityId))));
        Duration stopWait = Duration.ofSeconds(1);
        OrderCommitQueue queue = new OrderCommitQueue(batches, 1, 2, new SimpleMeterRegistry(), stopWait);
        queue.start();
        List<CompletableFuture<Map<InboundOrder, MessageOutcome>>> results = new ArrayList<>();
        try (Connection stall = dataSource.getConnection();
                Statement s = stall.createStatement()) {
            stall.setAutoCommit(false);
            s.execute("LOCK TABLE consumer_inbox IN ACCESS EXCLUSIVE MODE");
            List<Thread> callers = new ArrayList<>();
            results.add(submit(queue, first, callers));
            results.add(submit(queue, second, callers));
            // a caller waits on its result once its list is queued: from then on a committer settles it
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> callers.size() == 2
                            && callers.stream().allMatch(t -> t.getState() == Thread.State.WAITING));
            long started = System.nanoTime();
            queue.stop();
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertThat(tookMs)
                    .as("one wait of %d ms for both committers, not one each", stopWait.toMillis())
                    .isBetween(stopWait.toMillis() - 50, 2 * stopWait.toMillis() - 200);
            assertThat(results).as("both lists are still in their transactions").noneMatch(CompletableFuture::isDone);
            stall.commit();
        }
        for (CompletableFuture<Map<InboundOrder, MessageOutcome>> r : results) {
            assertThat(r.get(30, TimeUnit.SECONDS).values())
                    .allMatch(o -> o == MessageOutcome.CREATED || o == MessageOutcome.DUPLICATE)
                    .hasSize(1);
        }
    }

    /** Each list from a thread of its own, as the consumer's listener threads call it. */
    private static CompletableFuture<Map<InboundOrder, MessageOutcome>> submit(
            OrderCommitQueue queue, List<InboundOrder> list) {
        return submit(queue, list, new ArrayList<>());
    }

    /** The same, the calling thread added to {@code callers}. */
    private static CompletableFuture<Map<InboundOrder, MessageOutcome>> submit(
            OrderCommitQueue queue, List<InboundOrder> list, List<Thread> callers) {
        CompletableFuture<Map<InboundOrder, MessageOutcome>> f = new CompletableFuture<>();
        callers.add(Thread.ofPlatform().start(() -> {
            try {
                f.complete(queue.process(list));
            } catch (InterruptedException | RuntimeException e) {
                f.completeExceptionally(e);
            }
        }));
        return f;
    }
}
