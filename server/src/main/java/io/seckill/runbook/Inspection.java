package io.seckill.runbook;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.seckill.activity.Stock;
import io.seckill.anomaly.Anomalies;
import io.seckill.compensation.CompensationTasks;
import io.seckill.config.SeckillProperties;
import io.seckill.hold.ManualHolds;
import io.seckill.inbox.Inbox;
import io.seckill.order.Orders;
import io.seckill.outbox.Outbox;
import io.seckill.payment.PaymentService;
import io.seckill.payment.Payments;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.reconcile.Repairs;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.Reservations;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.rocketmq.client.QueryResult;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.MessageExt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * The runbook's first look (DESIGN.md §11.6): every source's evidence about the object
 * behind any business id, in the order in which the sources are believed when they disagree.
 */
@Service
public record Inspection(
        Lookup lookup,
        Reservations reservations,
        Orders orders,
        Payments payments,
        Stock stock,
        Inbox inbox,
        Outbox outbox,
        CompensationTasks tasks,
        ManualHolds holds,
        Anomalies anomalies,
        Repairs repairs,
        PaymentChannel channel,
        Redis redis,
        SeckillProperties props,
        DefaultMQProducer producer) {

    private static final Logger log = LoggerFactory.getLogger(Inspection.class);

    private static final String CHANNEL = "1 payment channel and payment records";
    private static final String POSTGRESQL = "2 postgresql order and inventory ledger";
    private static final String WORK = "3 inbox, outbox and compensation tasks";
    private static final String REDIS = "4 redis";
    private static final String ROCKETMQ = "5 rocketmq (presence proves only 'maybe sent')";
    private static final String LOGS = "6 application logs";

    /** Who is believed when sources disagree: the keys of {@link Evidence}, most believed first. */
    public static final List<String> AUTHORITY = List.of(CHANNEL, POSTGRESQL, WORK, REDIS, ROCKETMQ, LOGS);

    /**
     * Every source's evidence about one reservation, each under its rank in {@link #AUTHORITY}; the rows are shown as
     * stored. {@code rocketmq} is the messages found under the reservation's key, or why the broker could not say.
     */
    public record Evidence(
            String query,
            List<String> ids,
            List<String> authorityOrder,
            @JsonProperty(CHANNEL) Payment payment,
            @JsonProperty(POSTGRESQL) Books books,
            @JsonProperty(WORK) Work work,
            @JsonProperty(REDIS) RedisKeys redis,
            @JsonProperty(ROCKETMQ) Object rocketmq,
            @JsonProperty(LOGS) String logs,
            List<Map<String, Object>> manualHolds,
            List<Map<String, Object>> anomalies,
            List<Map<String, Object>> repairs,
            List<Map<String, Object>> audit) {}

    /** The payment's records and attempts; the channel's own answer, or why it gave none (absent without an order). */
    public record Payment(
            List<Map<String, Object>> paymentRecords,
            List<Map<String, Object>> paymentAttempts,
            @JsonInclude(JsonInclude.Include.NON_NULL) Object channel) {}

    public record Books(
            List<Map<String, Object>> order, List<Map<String, Object>> reservation, List<Map<String, Object>> ledger) {}

    public record Work(
            List<Map<String, Object>> inbox,
            List<Map<String, Object>> outbox,
            List<Map<String, Object>> compensationTasks) {}

    /** The reservation's Redis keys: its hash, markers, the user's mark and its scores in the sale's indexes. */
    public record RedisKeys(
            Map<String, String> reservationHash,
            String compensationMarker,
            String releaseMarker,
            String userMark,
            Double sendDueScore,
            Double deadlineScore) {}

    public Evidence inspect(String anyId) {
        UUID rid = lookup.resolve(anyId);
        Reservations.Reservation res = lookup.reservation(rid);
        List<Map<String, Object>> order = orders.rowsOfReservation(rid);
        UUID orderId = order.isEmpty() ? null : (UUID) order.getFirst().get("order_id");
        UUID paymentId = orderId == null ? null : PaymentService.paymentId(orderId);
        List<String> ids = ids(res, orderId, paymentId);
        Object channelAnswer = null;
        if (paymentId != null) {
            try {
                channelAnswer = channel.query(paymentId);
            } catch (PaymentChannel.ChannelUnavailable e) {
                channelAnswer = "unavailable: " + e.getMessage();
            }
        }
        return new Evidence(
                anyId,
                ids,
                AUTHORITY,
                new Payment(payments.recordsOfReservation(rid), payments.attemptsOfReservation(rid), channelAnswer),
                new Books(order, reservations.rowsOf(rid), stock.ledgerOf(rid)),
                new Work(inbox.ofReservation(rid), outbox.ofReservation(rid), tasks.ofReservation(rid)),
                redisEvidence(res),
                mqEvidence(rid),
                "search the logs for reservation_id=" + rid + (orderId == null ? "" : " or order_id=" + orderId),
                holds.holds(ids),
                anomalies.forObjects(ids),
                repairs.forObjects(ids),
                holds.auditFor(ids));
    }

    private RedisKeys redisEvidence(Reservations.Reservation res) {
        SkuSlot slot = lookup.slot(res);
        String r = res.reservationId().toString();
        return new RedisKeys(
                redis.sync().hgetall(slot.reservation(r)),
                redis.sync().get(slot.compensationMarker(r)),
                redis.sync().get(slot.releaseMarker(r)),
                redis.sync().get(slot.user(res.userId())),
                redis.sync().zscore(slot.sendDue(), r),
                redis.sync().zscore(slot.deadlines(), r));
    }

    /** What the broker holds under the reservation's key; the broker being down is itself evidence. */
    private Object mqEvidence(UUID rid) {
        try {
            @SuppressWarnings("deprecation")
            QueryResult q =
                    producer.queryMessage(props.mq().orderRequestTopic(), rid.toString(), 32, 0, Long.MAX_VALUE);
            List<Map<String, Object>> msgs = new ArrayList<>();
            for (MessageExt m : q.getMessageList()) {
                msgs.add(Map.of(
                        "topic",
                        m.getTopic(),
                        "broker_msg_id",
                        m.getMsgId(),
                        "keys",
                        String.valueOf(m.getKeys()),
                        "stored_at",
                        Instant.ofEpochMilli(m.getStoreTimestamp()).toString(),
                        "reconsume_times",
                        m.getReconsumeTimes()));
            }
            return Map.of("order_request_messages", msgs);
        } catch (Exception e) {
            log.warn(
                    "runbook.mq_evidence_unavailable reservation_id={} error_class={}: {}",
                    rid,
                    e.getClass().getName(),
                    e.getMessage());
            return "not available: " + e.getMessage();
        }
    }

    private static List<String> ids(Reservations.Reservation res, UUID orderId, UUID paymentId) {
        List<String> ids = new ArrayList<>();
        ids.add(res.reservationId().toString());
        ids.add(res.requestId().toString());
        ids.add(res.messageId().toString());
        if (orderId != null) {
            ids.add(orderId.toString());
            ids.add(paymentId.toString());
        }
        ids.add(CompensationTasks.taskId(res.reservationId()).toString());
        return ids;
    }
}
