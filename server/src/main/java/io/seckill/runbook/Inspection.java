package io.seckill.runbook;

import io.seckill.activity.LedgerRepository;
import io.seckill.anomaly.Anomalies;
import io.seckill.compensation.CompensationTasks;
import io.seckill.config.SeckillProperties;
import io.seckill.hold.ManualHolds;
import io.seckill.inbox.Inbox;
import io.seckill.order.OrderRepository;
import io.seckill.outbox.OutboxRepository;
import io.seckill.payment.PaymentService;
import io.seckill.payment.Payments;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.reconcile.Repairs;
import io.seckill.redis.Redis;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.ReservationRepository;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
        ReservationRepository reservations,
        OrderRepository orders,
        Payments payments,
        LedgerRepository ledger,
        Inbox inbox,
        OutboxRepository outbox,
        CompensationTasks tasks,
        ManualHolds holds,
        Anomalies anomalies,
        Repairs repairs,
        PaymentChannel channel,
        Redis redis,
        SeckillProperties props,
        DefaultMQProducer producer) {

    private static final Logger log = LoggerFactory.getLogger(Inspection.class);

    /** Who is believed when sources disagree. */
    public static final List<String> AUTHORITY = List.of(
            "1 payment channel and payment records",
            "2 postgresql order and inventory ledger",
            "3 inbox, outbox and compensation tasks",
            "4 redis",
            "5 rocketmq (presence proves only 'maybe sent')",
            "6 application logs");

    public Map<String, Object> inspect(String anyId) {
        UUID rid = lookup.resolve(anyId);
        ReservationRepository.Reservation res = lookup.reservation(rid);
        List<Map<String, Object>> order = orders.rowsOfReservation(rid);
        UUID orderId = order.isEmpty() ? null : (UUID) order.getFirst().get("order_id");
        UUID paymentId = orderId == null ? null : PaymentService.paymentId(orderId);
        List<String> ids = ids(res, orderId, paymentId);

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("query", anyId);
        out.put("ids", ids);
        out.put("authority_order", AUTHORITY);
        Map<String, Object> pay = new LinkedHashMap<>();
        pay.put("payment_records", payments.recordsOfReservation(rid));
        pay.put("payment_attempts", payments.attemptsOfReservation(rid));
        if (paymentId != null) {
            try {
                pay.put("channel", channel.query(paymentId));
            } catch (PaymentChannel.ChannelUnavailable e) {
                pay.put("channel", "unavailable: " + e.getMessage());
            }
        }
        out.put(AUTHORITY.get(0), pay);
        out.put(
                AUTHORITY.get(1),
                Map.of("order", order, "reservation", reservations.rows(rid), "ledger", ledger.ofReservation(rid)));
        out.put(
                AUTHORITY.get(2),
                Map.of(
                        "inbox",
                        inbox.ofReservation(rid),
                        "outbox",
                        outbox.ofReservation(rid),
                        "compensation_tasks",
                        tasks.ofReservation(rid)));
        out.put(AUTHORITY.get(3), redisEvidence(res));
        out.put(AUTHORITY.get(4), mqEvidence(rid));
        out.put(
                AUTHORITY.get(5),
                "search the logs for reservation_id=" + rid + (orderId == null ? "" : " or order_id=" + orderId));
        out.put("manual_holds", holds.holds(ids));
        out.put("anomalies", anomalies.forObjects(ids));
        out.put("repairs", repairs.forObjects(ids));
        out.put("audit", holds.auditFor(ids));
        return out;
    }

    private Map<String, Object> redisEvidence(ReservationRepository.Reservation res) {
        SkuSlot slot = lookup.slot(res);
        String r = res.reservationId().toString();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("reservation_hash", redis.sync().hgetall(slot.reservation(r)));
        m.put("compensation_marker", redis.sync().get(slot.compensationMarker(r)));
        m.put("release_marker", redis.sync().get(slot.releaseMarker(r)));
        m.put("user_mark", redis.sync().get(slot.user(res.userId())));
        m.put("send_due_score", redis.sync().zscore(slot.sendDue(), r));
        m.put("deadline_score", redis.sync().zscore(slot.deadlines(), r));
        return m;
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

    private static List<String> ids(ReservationRepository.Reservation res, UUID orderId, UUID paymentId) {
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
