package io.seckill.projection;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.seckill.activity.Activity;
import io.seckill.activity.SaleRegistry;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.config.SeckillProperties;
import io.seckill.json.Json;
import io.seckill.mq.MqClients;
import io.seckill.mq.PushConsumerRole;
import io.seckill.outbox.OutboxEvent;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.ReservationIds;
import io.seckill.state.HashStatus;
import io.seckill.state.ObjectKind;
import io.seckill.state.OrderStatus;
import io.seckill.state.SaleStatus;
import io.seckill.trace.PipelineTrace;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.message.MessageExt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The Redis projection role (DESIGN.md §7.1, §11.5): order events from the outbox become reservation
 * status and counter moves in Redis, each through an idempotent Lua call, so a redelivered event
 * changes nothing. A reservation missing from Redis is never "repaired" here by a blind counter
 * move: it is counted and left to reconciliation.
 */
@Component
class ProjectionConsumer extends PushConsumerRole {

    private static final Logger log = LoggerFactory.getLogger(ProjectionConsumer.class);

    private final SaleRegistry registry;
    private final OrderProjection projection;
    private final MeterRegistry meters;
    private final PipelineTrace trace;
    private final ReservationIds ids;
    private final Anomalies anomalies;
    private final Counter forged;

    ProjectionConsumer(
            SeckillProperties props,
            SaleRegistry registry,
            OrderProjection projection,
            PipelineTrace trace,
            ReservationIds ids,
            Anomalies anomalies,
            MeterRegistry meters) {
        super("projection", props);
        this.ids = ids;
        this.anomalies = anomalies;
        this.forged = meters.counter("projection.event.forged");
        this.registry = registry;
        this.projection = projection;
        this.meters = meters;
        this.trace = trace;
    }

    @Override
    protected DefaultMQPushConsumer create() throws MQClientException {
        DefaultMQPushConsumer c = MqClients.pushConsumer(props, props.mq().projectionGroup(), "projection");
        c.setConsumeMessageBatchMaxSize(1);
        c.setConsumeThreadMin(2);
        c.setConsumeThreadMax(2);
        c.subscribe(
                props.mq().orderEventTopic(),
                String.join(
                        " || ",
                        OutboxEvent.ORDER_CREATED,
                        OutboxEvent.ORDER_CANCEL_PENDING,
                        OutboxEvent.ORDER_PAID,
                        OutboxEvent.ORDER_CANCELLED));
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> consume(msgs));
        return c;
    }

    /**
     * An event the engine did not sign (its relay signs each with the id key): not applied - a process that can
     * publish to the event topic cannot rewrite what buyers are shown - but acknowledged, counted and recorded.
     */
    private void forgedEvent(MessageExt m) {
        forged.increment();
        log.error(
                "projection.event_forged broker_msg_id={} keys={} event_type={}: not signed by the engine; not applied",
                m.getMsgId(),
                m.getKeys(),
                m.getUserProperty("event_type"));
        anomalies.record(
                AnomalyKind.FORGED_ORDER_EVENT,
                ObjectKind.MESSAGE,
                m.getMsgId(),
                null,
                null,
                Map.of("keys", String.valueOf(m.getKeys()), "tags", String.valueOf(m.getTags())));
    }

    private ConsumeConcurrentlyStatus consume(List<MessageExt> msgs) {
        for (MessageExt m : msgs) {
            Span span =
                    trace.receive("projection", m).tag("event_type", String.valueOf(m.getUserProperty("event_type")));
            try (Tracer.SpanInScope scope = trace.inScope(span)) {
                project(m);
            } catch (RuntimeException e) {
                span.error(e);
                meters.counter("projection.retry").increment();
                log.warn(
                        "projection.failed outbox_event_id={} keys={} error_class={}: {}",
                        m.getUserProperty("event_id"),
                        m.getKeys(),
                        e.getClass().getName(),
                        e.getMessage());
                return ConsumeConcurrentlyStatus.RECONSUME_LATER;
            } finally {
                span.end();
            }
        }
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    }

    private void project(MessageExt m) {
        if (!ids.eventSigned(
                m.getUserProperty(OutboxEvent.SIGNATURE_VERSION),
                m.getUserProperty(OutboxEvent.SIGNATURE),
                m.getBody())) {
            forgedEvent(m);
            return;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> e = Json.read(m.getBody(), Map.class);
        String type = String.valueOf(e.get("event_type"));
        long activityId = ((Number) e.get("activity_id")).longValue();
        long skuId = ((Number) e.get("sku_id")).longValue();
        long userId = ((Number) e.get("user_id")).longValue();
        String reservationId = (String) e.get("reservation_id");
        String orderId = (String) e.get("order_id");
        Activity a = registry.find(activityId)
                .orElseThrow(() -> new IllegalStateException("unknown activity " + activityId));
        Activity.Sku sku = a.sku(skuId);
        if (sku == null) {
            throw new IllegalStateException("unknown sku " + activityId + "/" + skuId);
        }
        SkuSlot slot = SkuSlot.forUser(activityId, skuId, sku.buckets(), userId);
        List<Object> r = switch (type) {
            case OutboxEvent.ORDER_CREATED ->
                projection.project(slot, reservationId, orderId, HashStatus.ORDER_CREATED);
            case OutboxEvent.ORDER_CANCEL_PENDING, OutboxEvent.ORDER_PAID, OutboxEvent.ORDER_CANCELLED ->
                projection.project(
                        slot,
                        reservationId,
                        orderId,
                        HashStatus.ofOrder(OrderStatus.valueOf(String.valueOf(e.get("order_status")))));
            default -> null;
        };
        if (r == null) {
            return;
        }
        long code = ScriptReply.of(r).code();
        String word = ScriptReply.of(r).word();
        meters.counter(
                        "projection.apply",
                        "event",
                        type.toLowerCase(),
                        "result",
                        word.toLowerCase().replaceAll("[^a-z_]", "_"))
                .increment();
        if (code == 1
                && OutboxEvent.ORDER_CANCELLED.equals(type)
                && registry.find(activityId).map(Activity::status).orElse(null) != SaleStatus.OPEN) {
            meters.counter("inventory.released_after_close").increment();
            log.info(
                    "projection.released_after_close order_id={} activity_id={} sku_id={}", orderId, activityId, skuId);
        }
        if (code < 0) {
            log.error(
                    "projection.refused event_type={} reservation_id={} order_id={} activity_id={} sku_id={} user_id={} result={}",
                    type,
                    reservationId,
                    orderId,
                    activityId,
                    skuId,
                    userId,
                    word);
        }
    }
}
