package io.seckill.order;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.tracing.Span;
import io.seckill.config.SeckillProperties;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.inbox.Inbox;
import io.seckill.json.Json;
import io.seckill.mq.MqClients;
import io.seckill.mq.OrderBacklog;
import io.seckill.mq.PushConsumerRole;
import io.seckill.reservation.OrderCreateRequested;
import io.seckill.reservation.ReservationIds;
import io.seckill.trace.PipelineTrace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.message.MessageExt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The order consumer role: RocketMQ push consumer, batches of up to
 * {@code seckill.order-consumer.batch-size}, consumer threads capped at what PostgreSQL takes
 * ({@code seckill.order-consumer.threads}), not at what the broker could deliver (DESIGN.md §11.3).
 * The broker is acknowledged only after the commit; a message that could not be settled goes back
 * for redelivery on its own, the others of its batch are acknowledged.
 */
@Component
class OrderConsumer extends PushConsumerRole {

    private static final Logger log = LoggerFactory.getLogger(OrderConsumer.class);

    private final OrderBatchService service;
    private final Inbox quarantine;
    private final TransactionTemplate tx;
    private final PipelineTrace trace;
    private final DistributionSummary batchSizes;
    private final OrderCommitQueue commits;
    private final Timer brokerWait;

    private final ReservationIds ids;
    private final Counter forged;

    OrderConsumer(
            SeckillProperties props,
            OrderBatchService service,
            Inbox quarantine,
            TransactionTemplate tx,
            PipelineTrace trace,
            ReservationIds ids,
            MeterRegistry meters) {
        super("order-consumer", props);
        this.ids = ids;
        this.forged = meters.counter("order.message.forged");
        this.service = service;
        this.quarantine = quarantine;
        this.tx = tx;
        this.trace = trace;
        this.commits = new OrderCommitQueue(
                service,
                props.orderConsumer().batchSize(),
                props.orderConsumer().threads(),
                meters);
        this.batchSizes = DistributionSummary.builder("order.consume.batch.size")
                .description("messages per consumer delivery")
                .register(meters);
        this.brokerWait = Timer.builder("order.request.broker.wait")
                .description(
                        "an order request's time in the broker: stored to handed to the order consumer (consumer lag)")
                .serviceLevelObjectives(
                        Duration.ofMillis(10), Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(10))
                .register(meters);
    }

    @Override
    protected DefaultMQPushConsumer create() throws MQClientException {
        var cfg = props.orderConsumer();
        DefaultMQPushConsumer c = MqClients.pushConsumer(props, props.mq().orderConsumerGroup(), "order-consumer");
        c.setConsumeMessageBatchMaxSize(cfg.batchSize());
        c.setPullBatchSize(Math.max(32, 2 * cfg.batchSize()));
        // listener threads only queue their lists for the committers (OrderCommitQueue), which hold the cap on
        // concurrent PostgreSQL transactions; a delivery in a steady trickle is a few messages, so many waiting
        // listeners are what let a committer's transaction fill up
        int listeners = 64;
        c.setConsumeThreadMin(listeners);
        c.setConsumeThreadMax(listeners);
        // a group held while PostgreSQL is out stays unacknowledged this long before the client hands it back
        c.setConsumeTimeout(Math.max(1, cfg.consumeTimeout().toMinutes()));
        // the entry reads the group's acknowledged offsets from the broker (the order backlog's age and the
        // rate orders are settled at); with the client's 5 s default a group that has caught up can look
        // seconds behind whenever a pause in traffic leaves no pull to carry its offset
        c.setPersistConsumerOffsetInterval((int) OrderBacklog.OFFSETS_WRITTEN_MS);
        c.subscribe(props.mq().orderRequestTopic(), "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> consume(msgs));
        log.info(
                "order consumer: group={} topic={} batch={} threads={} consume_timeout={}",
                props.mq().orderConsumerGroup(),
                props.mq().orderRequestTopic(),
                cfg.batchSize(),
                cfg.threads(),
                cfg.consumeTimeout());
        return c;
    }

    @Override
    protected void startRole() {
        commits.start();
        super.startRole();
    }

    @Override
    protected void stopRole() {
        super.stopRole();
        commits.stop();
    }

    /** Stops pulling (messages accumulate in the broker) until {@link #resume()}. */
    void suspend() {
        consumer().suspend();
    }

    void resume() {
        consumer().resume();
    }

    ConsumeConcurrentlyStatus consume(List<MessageExt> msgs) {
        batchSizes.record(msgs.size());
        // the broker's store time on the JVM's clock: skew between them shows in this histogram only
        long now = service.clock().millis();
        for (MessageExt m : msgs) {
            brokerWait.record(Math.max(0, now - m.getStoreTimestamp()), TimeUnit.MILLISECONDS);
        }
        List<InboundOrder> parsed = new ArrayList<>(msgs.size());
        Map<InboundOrder, MessageExt> source = new IdentityHashMap<>();
        List<MessageExt> retry = new ArrayList<>();
        Map<InboundOrder, Span> spans = new IdentityHashMap<>();
        for (MessageExt m : msgs) {
            InboundOrder in = parse(m);
            if (in != null && !authentic(ids, in.msg())) {
                if (!quarantine(m, "FORGED", in.msg().messageId().toString())) {
                    retry.add(m);
                }
                continue;
            }
            if (in != null) {
                Span span = trace.receive("order-request consume", m);
                in = in.tracedBy(trace.traceparent(span));
                spans.put(in, span);
                parsed.add(in);
                source.put(in, m);
            } else if (!quarantineUnreadable(m)) {
                retry.add(m);
            }
        }
        Map<InboundOrder, MessageOutcome> outcomes = Map.of();
        try {
            outcomes = commits.process(parsed);
            Failpoints.hit(Failpoint.AFTER_PG_COMMIT_BEFORE_ACK);
        } catch (InterruptedException e) {
            // shutting down while the list waited for its commit: it is redelivered, and the inbox answers for
            // whatever of it the committer settles after all
            Thread.currentThread().interrupt();
        } finally {
            for (InboundOrder in : parsed) {
                MessageOutcome outcome = outcomes.getOrDefault(in, MessageOutcome.RETRY);
                spans.get(in).tag("outcome", outcome.name().toLowerCase()).end();
            }
        }
        for (InboundOrder in : parsed) {
            if (outcomes.getOrDefault(in, MessageOutcome.RETRY) == MessageOutcome.RETRY) {
                retry.add(source.get(in));
            }
        }
        if (retry.isEmpty()) {
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        }
        if (retry.size() == msgs.size()) {
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        }
        try {
            for (MessageExt m : retry) {
                consumer().sendMessageBack(m, 0, m.getBrokerName());
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        } catch (Exception e) {
            // The whole batch comes back; the inbox makes the settled ones harmless duplicates.
            log.warn(
                    "order.send_back_failed batch={} retry={} error_class={}: {}",
                    msgs.size(),
                    retry.size(),
                    e.getClass().getName(),
                    e.getMessage());
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        }
    }

    /** The body, checked field by field; null when it cannot be an order message. */
    static InboundOrder parse(MessageExt m) {
        try {
            OrderCreateRequested x = Json.read(m.getBody(), OrderCreateRequested.class);
            String problem = problem(x);
            if (problem != null) {
                log.error(
                        "order.message_invalid broker_msg_id={} keys={} field={}", m.getMsgId(), m.getKeys(), problem);
                return null;
            }
            return InboundOrder.of(x, m.getBody(), m.getMsgId());
        } catch (RuntimeException e) {
            log.error(
                    "order.message_unreadable broker_msg_id={} keys={} error_class={}: {}",
                    m.getMsgId(),
                    m.getKeys(),
                    e.getClass().getName(),
                    e.getMessage());
            return null;
        }
    }

    static String problem(OrderCreateRequested x) {
        if (x.schemaVersion() != 1) {
            return "schema_version";
        }
        if (!OrderCreateRequested.EVENT_TYPE.equals(x.eventType())) {
            return "event_type";
        }
        if (x.messageId() == null) {
            return "message_id";
        }
        if (x.reservationId() == null) {
            return "reservation_id";
        }
        if (x.requestId() == null) {
            return "request_id";
        }
        if (x.activityId() <= 0) {
            return "activity_id";
        }
        if (x.skuId() <= 0) {
            return "sku_id";
        }
        if (x.userId() <= 0) {
            return "user_id";
        }
        try {
            x.reservedAtInstant();
        } catch (RuntimeException e) {
            return "reserved_at";
        }
        try {
            x.businessDeadlineInstant();
        } catch (RuntimeException e) {
            return "business_deadline";
        }
        return null;
    }

    /**
     * Whether the message's ids are the engine's own (DESIGN.md §9.1): its reservation id is the HMAC, under one of
     * the retained id keys, of its activity, SKU, user and request, and its message id the HMAC of that reservation
     * id. A process that can publish to the order topic but holds no id key cannot make an order for any user.
     */
    static boolean authentic(ReservationIds ids, OrderCreateRequested x) {
        for (int version : ids.versions()) {
            UUID rid = ids.reservationId(version, x.activityId(), x.skuId(), x.userId(), x.requestId());
            if (rid.equals(x.reservationId()) && ids.messageId(version, rid).equals(x.messageId())) {
                return true;
            }
        }
        return false;
    }

    /** An unreadable message is kept for a human and acknowledged; false if even that failed (then it is retried). */
    private boolean quarantineUnreadable(MessageExt m) {
        return quarantine(
                m,
                "UNREADABLE",
                m.getUserProperty("message_id") == null ? m.getMsgId() : m.getUserProperty("message_id"));
    }

    /**
     * A message that must not be processed - unreadable, or forged (ids no id key made: {@code order_message_forged_total},
     * anomaly {@code INBOX_FORGED}) - is kept for a human and acknowledged; false if even that failed.
     */
    private boolean quarantine(MessageExt m, String reason, String messageId) {
        if (reason.equals("FORGED")) {
            forged.increment();
            log.error(
                    "order.message_forged broker_msg_id={} keys={}: its ids are not the engine's; quarantined, no order "
                            + "and no stock moved",
                    m.getMsgId(),
                    m.getKeys());
        }
        try {
            tx.executeWithoutResult(s -> quarantine.quarantine(
                    props.mq().orderConsumerGroup(),
                    m.getTopic(),
                    messageId,
                    m.getMsgId(),
                    reason,
                    m.getBody(),
                    InboundOrder.sha256(m.getBody()),
                    null));
            return true;
        } catch (RuntimeException e) {
            log.error(
                    "order.quarantine_failed broker_msg_id={} error_class={}",
                    m.getMsgId(),
                    e.getClass().getName(),
                    e);
            return false;
        }
    }
}
