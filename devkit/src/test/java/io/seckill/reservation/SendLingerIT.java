package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.redis.SkuSlot;
import io.seckill.support.BoundProperties;
import io.seckill.support.IntegrationTest;
import io.seckill.trace.PipelineTrace;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The first send waits up to the linger for more messages to join its batch: messages queued a
 * moment apart reach the broker in one send, not one send each.
 */
class SendLingerIT extends IntegrationTest {

    @Autowired
    private PipelineTrace trace;

    /** A sender of its own, started, on a fresh topic, with a linger of a second and meters of its own. */
    private OrderRequestSender lingeringSender(MeterRegistry own) {
        String topic =
                "SEND_LINGER_IT_" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
        SeckillProperties cfg = BoundProperties.bind(Map.of(
                "seckill.roles",
                "api",
                "seckill.mq.order-request-topic",
                topic,
                "seckill.reservation.send-linger",
                "1s"));
        OrderRequestSender sender = new OrderRequestSender(producer, redis, trace, cfg, own);
        sender.start();
        return sender;
    }

    @Test
    @DisplayName("messages queued within the send linger go to the broker as one batch")
    void lingerFillsOneBatch() {
        MeterRegistry own = new SimpleMeterRegistry();
        OrderRequestSender sender = lingeringSender(own);
        try {
            long activityId = newActivityId();
            SkuSlot slot = SkuSlot.single(activityId, 1);
            queue(sender, slot, activityId, 1, 5);
            long firstQueued = System.nanoTime();
            // the second half comes 150 ms later: without the linger the first half would already be on its way
            Awaitility.await()
                    .atMost(Duration.ofSeconds(1))
                    .until(() -> System.nanoTime() - firstQueued
                            >= Duration.ofMillis(150).toNanos());
            queue(sender, slot, activityId, 6, 10);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> own.counter("reservation.send", "result", "ok").count() == 10);
            DistributionSummary batches =
                    own.find("reservation.send.batch.size").summary();
            assertThat(batches.count()).as("broker sends").isEqualTo(1);
            assertThat(batches.totalAmount()).as("messages in them").isEqualTo(10);
            assertThat(own.counter("reservation.send", "result", "failed").count())
                    .isZero();
        } finally {
            sender.stop();
        }
    }

    @Test
    @DisplayName(
            "a sender stopped while its batch lingers sends none of it and counts every message as deferred (send_due keeps them for the rescan)")
    void stoppedWhileLingering() {
        MeterRegistry own = new SimpleMeterRegistry();
        OrderRequestSender sender = lingeringSender(own);
        long activityId = newActivityId();
        queue(sender, SkuSlot.single(activityId, 1), activityId, 1, 3);
        sender.stop();
        assertThat(own.counter("reservation.send", "result", "deferred").count())
                .isEqualTo(3);
        assertThat(own.counter("reservation.send", "result", "ok").count()).isZero();
        assertThat(own.find("reservation.send.batch.size").summary().count()).isZero();
    }

    private static void queue(OrderRequestSender sender, SkuSlot slot, long activityId, long fromUser, long toUser) {
        long now = System.currentTimeMillis();
        for (long user = fromUser; user <= toUser; user++) {
            UUID reservationId = UUID.randomUUID();
            sender.send(
                    OrderCreateRequested.of(
                            UUID.randomUUID(),
                            UUID.randomUUID(),
                            reservationId,
                            activityId,
                            1,
                            user,
                            now,
                            now + 60_000),
                    slot);
        }
    }
}
