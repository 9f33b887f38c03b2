package io.seckill.reservation;

import java.util.List;
import java.util.concurrent.Semaphore;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.failpoint.Failpoints;
import io.seckill.metrics.LogThrottle;
import io.seckill.mq.Json;
import io.seckill.redis.LuaScript;
import io.seckill.redis.SkuSlot;

/**
 * Sends ORDER_CREATE_REQUESTED right after admission, asynchronously and with a bound on messages
 * in flight. On SEND_OK the reservation is marked PUBLISHED and leaves send_due. On failure, or
 * when the bound is full, the send_due entry simply stays: the rescan re-sends it later with the
 * same message_id and body.
 */
@Component
public class OrderRequestSender {

    private static final Logger log = LoggerFactory.getLogger(OrderRequestSender.class);
    private static final LuaScript MARK_PUBLISHED = LuaScript.load("mark_published");
    public static final String RETRY_COUNT_PROPERTY = "retry_count";

    private final DefaultMQProducer producer;
    private final StatefulRedisConnection<String, String> redis;
    private final String topic;
    private final Semaphore inFlight;
    private final Counter sendOk;
    private final Counter sendFailed;
    private final Counter deferred;
    private final LogThrottle failureLog = new LogThrottle(java.time.Duration.ofSeconds(1));

    OrderRequestSender(DefaultMQProducer producer, StatefulRedisConnection<String, String> redis, SeckillProperties props,
            MeterRegistry meters) {
        this.producer = producer;
        this.redis = redis;
        this.topic = props.mq().orderRequestTopic();
        this.inFlight = new Semaphore(props.reservation().maxInFlightSends());
        this.sendOk = meters.counter("reservation.send", "result", "ok");
        this.sendFailed = meters.counter("reservation.send", "result", "failed");
        this.deferred = meters.counter("reservation.send", "result", "deferred");
    }

    /** The message for a reservation: key = reservation id, body immutable, retry count as metadata. */
    public static Message message(String topic, OrderCreateRequested body, int retryCount) {
        Message m = new Message(topic, OrderCreateRequested.EVENT_TYPE, body.reservationId().toString(), Json.bytes(body));
        m.putUserProperty(RETRY_COUNT_PROPERTY, Integer.toString(retryCount));
        m.putUserProperty("message_id", body.messageId().toString());
        return m;
    }

    void send(OrderCreateRequested body, SkuSlot slot) {
        if (!inFlight.tryAcquire()) {
            deferred.increment();
            log.debug("reservation.mq_send_deferred reservation_id={} message_id={}", body.reservationId(), body.messageId());
            return;
        }
        try {
            producer.send(message(topic, body, 0), new SendCallback() {
                @Override
                public void onSuccess(SendResult result) {
                    inFlight.release();
                    if (result.getSendStatus() == SendStatus.SEND_OK) {
                        sendOk.increment();
                        markPublished(body, slot);
                    } else {
                        failed(body, "send status " + result.getSendStatus());
                    }
                }

                @Override
                public void onException(Throwable e) {
                    inFlight.release();
                    failed(body, e.getClass().getName() + ": " + e.getMessage());
                }
            });
        } catch (Exception e) {
            inFlight.release();
            failed(body, e.getClass().getName() + ": " + e.getMessage());
        }
    }

    /** Unknown, not failed (design 2.3 rule 2): the send_due entry stays and the rescan re-sends the same id. */
    private void failed(OrderCreateRequested body, String error) {
        sendFailed.increment();
        long suppressed = failureLog.tryAcquire();
        if (suppressed >= 0) {
            log.warn("reservation.mq_send_unknown reservation_id={} message_id={} suppressed_since_last={}: {}",
                    body.reservationId(), body.messageId(), suppressed, error);
        }
    }

    private void markPublished(OrderCreateRequested body, SkuSlot slot) {
        String rid = body.reservationId().toString();
        try {
            Failpoints.hit(Failpoints.AFTER_MQ_SEND_BEFORE_REDIS_MARK);
            List<Object> r = MARK_PUBLISHED.run(redis, new String[] {slot.reservation(rid), slot.sendDue()}, rid, "");
            if (LuaScript.code(r) < 0) {
                log.warn("reservation.mark_published_refused reservation_id={} message_id={} result={}", rid,
                        body.messageId(), LuaScript.text(r, 1));
            }
        } catch (RuntimeException e) {
            // The entry stays in send_due; the rescan re-sends with the same message_id (a harmless duplicate).
            log.warn("reservation.mark_published_failed reservation_id={} message_id={} error_class={}: {}", rid,
                    body.messageId(), e.getClass().getName(), e.getMessage());
        }
    }
}
