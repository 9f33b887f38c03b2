package io.seckill.reservation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.tracing.Span;
import io.seckill.config.SeckillProperties;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.json.Json;
import io.seckill.metrics.LogThrottle;
import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.trace.PipelineTrace;
import io.seckill.worker.PollingWorker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Sends ORDER_CREATE_REQUESTED right after admission without holding up the answer, and without one
 * broker round trip per reservation: the request thread only queues the message (bounded); one
 * dispatcher drains whatever has queued up meanwhile into RocketMQ batch sends (up to
 * {@code seckill.reservation.send-batch} messages, a bounded number of batches in flight), waiting up
 * to {@code seckill.reservation.send-linger} after a batch's first message for more to join it (the
 * buyer's answer never waits for it; the broker and Redis then take one send and one mark for many
 * messages instead of one for every two), and a
 * confirmed batch is marked PUBLISHED in Redis with one script call per slot, asynchronously. A
 * failed batch, or a message the full queue refused, simply stays in send_due: the rescan re-sends it
 * later with the same message_id and body (unknown is not failure, DESIGN.md §2.3 rule 2).
 */
@Component
public class OrderRequestSender extends PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(OrderRequestSender.class);
    /** mark_published_many.lua answers {marked, already marked, missing}: how many hashes were gone. */
    private static final int MISSING = 2;

    private static final LuaScript MARK_PUBLISHED_MANY = LuaScript.load("mark_published_many");
    public static final String RETRY_COUNT_PROPERTY = "retry_count";
    /** RocketMQ's own bound on one batch's body (4 MiB) with room to spare. */
    private static final int MAX_BATCH_BYTES = 1 << 20;

    /** A reservation's message on its way, with the span of its send (a child of the buyer's request). */
    private record Pending(OrderCreateRequested body, SkuSlot slot, Message message, Span span) {}

    private final DefaultMQProducer producer;
    private final Redis redis;
    private final PipelineTrace trace;
    private final String topic;
    private final long sendTimeoutMs;
    private final int batchMax;
    private final long lingerNanos;
    private final BlockingQueue<Pending> queue;
    private final Semaphore batchesInFlight;
    private final Counter sendOk;
    private final Counter sendFailed;
    private final Counter deferred;
    private final DistributionSummary batchSize;
    private final LogThrottle failureLog = new LogThrottle(java.time.Duration.ofSeconds(1));

    OrderRequestSender(
            DefaultMQProducer producer,
            Redis redis,
            PipelineTrace trace,
            SeckillProperties props,
            MeterRegistry meters) {
        super("api", "reservation.sender", java.time.Duration.ZERO, props, meters);
        this.producer = producer;
        this.redis = redis;
        this.trace = trace;
        this.topic = props.mq().orderRequestTopic();
        this.sendTimeoutMs = props.mq().sendTimeout().toMillis();
        this.batchMax = props.reservation().sendBatch();
        this.lingerNanos = props.reservation().sendLinger().toNanos();
        this.queue = new ArrayBlockingQueue<>(props.reservation().maxInFlightSends());
        this.batchesInFlight = new Semaphore(props.reservation().sendBatchesInFlight());
        this.sendOk = meters.counter("reservation.send", "result", "ok");
        this.sendFailed = meters.counter("reservation.send", "result", "failed");
        this.deferred = meters.counter("reservation.send", "result", "deferred");
        this.batchSize = DistributionSummary.builder("reservation.send.batch.size")
                .description("Order messages carried by one broker send")
                .register(meters);
        Gauge.builder("reservation.send.queued", queue, BlockingQueue::size).register(meters);
    }

    /** The message for a reservation: key = reservation id, body immutable, retry count as metadata. */
    public static Message message(String topic, OrderCreateRequested body, int retryCount) {
        Message m = new Message(
                topic, OrderCreateRequested.EVENT_TYPE, body.reservationId().toString(), Json.bytes(body));
        m.putUserProperty(RETRY_COUNT_PROPERTY, Integer.toString(retryCount));
        m.putUserProperty("message_id", body.messageId().toString());
        return m;
    }

    /** Queues the first send of a reservation; never blocks the request thread. */
    void send(OrderCreateRequested body, SkuSlot slot) {
        Message m = message(topic, body, 0);
        Pending p = new Pending(body, slot, m, trace.send("order-request send", m));
        if (!isRunning() || !queue.offer(p)) {
            deferred(p);
            log.debug(
                    "reservation.mq_send_deferred reservation_id={} message_id={}",
                    body.reservationId(),
                    body.messageId());
        }
    }

    /** Not sent now: the message stays in send_due for the rescan. */
    private void deferred(Pending p) {
        p.span().tag("result", "deferred").end();
        deferred.increment();
    }

    @Override
    protected String threadName() {
        return "order-request-sender";
    }

    /**
     * One pass of the dispatcher: takes what has queued up (waiting briefly for the first message, then
     * up to the linger for the batch to fill) and sends it as batches; returns how many messages it
     * sent off (0 = idle).
     */
    @Override
    protected int runPass() {
        List<Pending> drained = new ArrayList<>(batchMax);
        int handed = 0;
        try {
            Pending first = queue.poll(200, TimeUnit.MILLISECONDS);
            if (first == null) {
                return 0;
            }
            long lingerEnds = System.nanoTime() + lingerNanos;
            drained.add(first);
            queue.drainTo(drained, batchMax - 1);
            while (drained.size() < batchMax) {
                Pending next = queue.poll(lingerEnds - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (next == null) {
                    break;
                }
                drained.add(next);
                queue.drainTo(drained, batchMax - drained.size());
            }
            for (List<Pending> batch : split(drained)) {
                batchesInFlight.acquire();
                sendBatch(batch);
                handed += batch.size();
            }
            return drained.size();
        } catch (InterruptedException e) {
            // stopping: what was taken and not handed to the broker stays in send_due for the rescan
            defer(drained.subList(handed, drained.size()));
            Thread.currentThread().interrupt();
            return 0;
        } catch (RuntimeException e) {
            // the messages not handed to the broker stay in send_due and are re-sent by the rescan
            failed(drained.subList(handed, drained.size()), e.getClass().getName() + ": " + e.getMessage());
            throw e;
        }
    }

    /** Stops the dispatcher; messages still queued stay in send_due for the rescan, counted as deferred. */
    @Override
    protected void stopRole() {
        super.stopRole();
        List<Pending> left = new ArrayList<>();
        queue.drainTo(left);
        defer(left);
    }

    private void defer(List<Pending> pending) {
        pending.forEach(this::deferred);
        if (!pending.isEmpty()) {
            log.info("reservation.mq_send_deferred messages={} (left in send_due for the rescan)", pending.size());
        }
    }

    /** Batches under the broker's size bound. */
    private static List<List<Pending>> split(List<Pending> drained) {
        List<List<Pending>> out = new ArrayList<>();
        List<Pending> current = new ArrayList<>();
        int bytes = 0;
        for (Pending p : drained) {
            int size = p.message().getBody().length + 512;
            if (!current.isEmpty() && bytes + size > MAX_BATCH_BYTES) {
                out.add(current);
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(p);
            bytes += size;
        }
        if (!current.isEmpty()) {
            out.add(current);
        }
        return out;
    }

    private void sendBatch(List<Pending> batch) {
        List<Pending> sent = List.copyOf(batch);
        List<Message> messages = new ArrayList<>(sent.size());
        sent.forEach(p -> messages.add(p.message()));
        batchSize.record(sent.size());
        try {
            SendCallback callback = new SendCallback() {
                @Override
                public void onSuccess(SendResult result) {
                    batchesInFlight.release();
                    if (result.getSendStatus() == SendStatus.SEND_OK) {
                        sendOk.increment(sent.size());
                        sent.forEach(p -> p.span().end());
                        markPublished(sent);
                    } else {
                        failed(sent, "send status " + result.getSendStatus());
                    }
                }

                @Override
                public void onException(Throwable e) {
                    batchesInFlight.release();
                    failed(sent, e.getClass().getName() + ": " + e.getMessage());
                }
            };
            if (messages.size() == 1) {
                producer.send(messages.getFirst(), callback, sendTimeoutMs);
            } else {
                producer.send(messages, callback, sendTimeoutMs);
            }
        } catch (Exception e) {
            batchesInFlight.release();
            failed(sent, e.getClass().getName() + ": " + e.getMessage());
        }
    }

    /** Unknown, not failed (DESIGN.md §2.3 rule 2): the send_due entries stay and the rescan re-sends the same ids. */
    private void failed(List<Pending> batch, String error) {
        sendFailed.increment(batch.size());
        batch.forEach(p -> p.span().tag("result", "unknown").tag("error", error).end());
        long suppressed = failureLog.tryAcquire();
        if (suppressed >= 0) {
            log.warn(
                    "reservation.mq_send_unknown messages={} first_reservation_id={} suppressed_since_last={}: {}",
                    batch.size(),
                    batch.isEmpty() ? null : batch.getFirst().body().reservationId(),
                    suppressed,
                    error);
        }
    }

    /** One script call per slot of the batch, without blocking the broker's callback thread. */
    private void markPublished(List<Pending> batch) {
        try {
            Failpoints.hit(Failpoint.AFTER_MQ_SEND_BEFORE_REDIS_MARK);
        } catch (RuntimeException e) {
            log.warn(
                    "reservation.mark_published_failed messages={} error_class={}: {}",
                    batch.size(),
                    e.getClass().getName(),
                    e.getMessage());
            return;
        }
        Map<String, List<Pending>> bySlot = new LinkedHashMap<>();
        for (Pending p : batch) {
            bySlot.computeIfAbsent(p.slot().tag(), k -> new ArrayList<>()).add(p);
        }
        for (List<Pending> group : bySlot.values()) {
            SkuSlot slot = group.getFirst().slot();
            String[] keys = new String[group.size() + 1];
            String[] ids = new String[group.size()];
            keys[0] = slot.sendDue();
            for (int i = 0; i < group.size(); i++) {
                ids[i] = group.get(i).body().reservationId().toString();
                keys[i + 1] = slot.reservation(ids[i]);
            }
            try {
                MARK_PUBLISHED_MANY.runAsync(redis, keys, ids).whenComplete((r, e) -> {
                    if (e != null) {
                        // the entries stay in send_due; the rescan re-sends with the same message_id (a harmless
                        // duplicate)
                        log.warn(
                                "reservation.mark_published_failed slot={} messages={} error_class={}: {}",
                                slot.tag(),
                                group.size(),
                                e.getClass().getName(),
                                e.getMessage());
                    } else if (ScriptReply.number(r, MISSING) > 0) {
                        log.warn(
                                "reservation.mark_published_missing slot={} missing={}",
                                slot.tag(),
                                ScriptReply.number(r, MISSING));
                    }
                });
            } catch (RuntimeException e) {
                log.warn(
                        "reservation.mark_published_failed slot={} messages={} error_class={}: {}",
                        slot.tag(),
                        group.size(),
                        e.getClass().getName(),
                        e.getMessage());
            }
        }
    }
}
