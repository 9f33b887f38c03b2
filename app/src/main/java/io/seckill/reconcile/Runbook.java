package io.seckill.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.QueryResult;
import org.apache.rocketmq.common.message.MessageExt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

import io.lettuce.core.api.StatefulRedisConnection;
import io.seckill.activity.Activity;
import io.seckill.activity.ActivityService;
import io.seckill.activity.SaleRegistry;
import io.seckill.api.ApiException;
import io.seckill.compensation.CompensationTaskRepository;
import io.seckill.compensation.CompensationWorker;
import io.seckill.config.SeckillProperties;
import io.seckill.invariants.InvariantChecker;
import io.seckill.mq.MqClients;
import io.seckill.payment.PaymentRepository;
import io.seckill.payment.PaymentService;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.projection.OrderProjection;
import io.seckill.redis.LuaScript;
import io.seckill.anomaly.AnomalyRepository;
import io.seckill.redis.SkuSlot;

/**
 * The operator's runbook (design 11.6) as code: inspect any business id across every source in
 * authority order, freeze an object out of automation, repair it through a standard action (an
 * idempotent repair task), adjust stock through the ledger, close a sale out. Every manual action
 * writes an {@code audit_log} row with before, after, evidence, operator and reason.
 */
@Service
public class Runbook {

    private static final Logger log = LoggerFactory.getLogger(Runbook.class);

    /** Design 11.6 step 3: who is believed when sources disagree. */
    public static final List<String> AUTHORITY = List.of("1 payment channel and payment records",
            "2 postgresql order and inventory ledger", "3 inbox, outbox and compensation tasks", "4 redis",
            "5 rocketmq (presence proves only 'maybe sent')", "6 application logs");

    /** The standard actions a repair may run. */
    public static final List<String> ACTIONS = List.of("release-hold", "compensate", "rebuild-projection", "refund");

    private final RunbookRepository repo;
    private final HoldRepository holds;
    private final AnomalyRepository anomalies;
    private final Repairs repairs;
    private final Reconciler reconciler;
    private final CompensationTaskRepository tasks;
    private final CompensationWorker compensation;
    private final OrderProjection projection;
    private final PaymentRepository payments;
    private final PaymentChannel channel;
    private final SaleRegistry registry;
    private final ActivityService activities;
    private final InvariantChecker invariants;
    private final StatefulRedisConnection<String, String> redis;
    private final TransactionTemplate tx;
    private final SeckillProperties props;
    private final StockAdjustments adjustments;
    private DefaultMQProducer mqQuery;

    Runbook(RunbookRepository repo, HoldRepository holds, AnomalyRepository anomalies, Repairs repairs, Reconciler reconciler,
            CompensationTaskRepository tasks, CompensationWorker compensation, OrderProjection projection,
            PaymentRepository payments, PaymentChannel channel, SaleRegistry registry, ActivityService activities,
            InvariantChecker invariants, StatefulRedisConnection<String, String> redis, TransactionTemplate tx,
            SeckillProperties props, StockAdjustments adjustments) {
        this.repo = repo;
        this.holds = holds;
        this.anomalies = anomalies;
        this.repairs = repairs;
        this.reconciler = reconciler;
        this.tasks = tasks;
        this.compensation = compensation;
        this.projection = projection;
        this.payments = payments;
        this.channel = channel;
        this.registry = registry;
        this.activities = activities;
        this.invariants = invariants;
        this.redis = redis;
        this.tx = tx;
        this.props = props;
        this.adjustments = adjustments;
    }

    /** Design 11.6 step 2: every source's evidence about the object behind {@code anyId}, in authority order. */
    public Map<String, Object> inspect(String anyId) {
        UUID rid = resolve(anyId);
        Map<String, Object> res = repo.reservation(rid).getFirst();
        List<Map<String, Object>> order = repo.order(rid);
        UUID orderId = order.isEmpty() ? null : (UUID) order.getFirst().get("order_id");
        UUID paymentId = orderId == null ? null : PaymentService.paymentId(orderId);
        List<String> ids = ids(res, orderId, paymentId);

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("query", anyId);
        out.put("ids", ids);
        out.put("authority_order", AUTHORITY);
        Map<String, Object> pay = new LinkedHashMap<>();
        pay.put("payment_records", repo.payments(rid));
        pay.put("payment_attempts", repo.paymentAttempts(rid));
        if (paymentId != null) {
            try {
                pay.put("channel", channel.query(paymentId));
            } catch (PaymentChannel.ChannelUnavailable e) {
                pay.put("channel", "unavailable: " + e.getMessage());
            }
        }
        out.put(AUTHORITY.get(0), pay);
        out.put(AUTHORITY.get(1), Map.of("order", order, "reservation", List.of(res), "ledger", repo.ledger(rid)));
        out.put(AUTHORITY.get(2), Map.of("inbox", repo.inbox(rid), "outbox", repo.outbox(rid), "compensation_tasks",
                repo.tasks(rid)));
        out.put(AUTHORITY.get(3), redisEvidence(res, rid));
        out.put(AUTHORITY.get(4), mqEvidence(rid));
        out.put(AUTHORITY.get(5), "search the logs for reservation_id=" + rid + (orderId == null ? "" : " or order_id=" + orderId));
        out.put("manual_holds", holds.holds(ids));
        out.put("anomalies", anomalies.forObjects(ids));
        out.put("repairs", repo.repairs(ids));
        out.put("audit", holds.auditFor(ids));
        return out;
    }

    /** Design 11.6 step 1: the object leaves automation (reservation MANUAL_REVIEW, tasks MANUAL, order held). */
    public Map<String, Object> freeze(String anyId, String operator, String reason) {
        requireReason(reason);
        UUID rid = resolve(anyId);
        Map<String, Object> before = snapshot(rid);
        tx.executeWithoutResult(s -> {
            String status = (String) before.get("reservation_status");
            holds.hold("RESERVATION", rid.toString(), status, reason, operator);
            Object orderId = before.get("order_id");
            if (orderId != null) {
                holds.hold("ORDER", orderId.toString(), (String) before.get("order_status"), reason, operator);
            }
            repo.freezeReservation(rid);
            repo.freezeTasks(rid);
            anomalies.record("MANUAL_REVIEW", "RESERVATION", rid.toString(), (Long) before.get("activity_id"),
                    (Long) before.get("sku_id"), Map.of("operator", operator, "reason", reason, "before", before));
        });
        Map<String, Object> after = snapshot(rid);
        holds.audit(operator, "FREEZE", "RESERVATION", rid.toString(), before, after, Map.of("query", anyId), reason);
        log.warn("runbook.freeze reservation_id={} operator={} reason={}", rid, operator, reason);
        return Map.of("reservation_id", rid.toString(), "before", before, "after", after);
    }

    /** Design 11.6 steps 4-5 and 7: an idempotent repair task running one standard action, audited. */
    public Map<String, Object> repair(String anyId, String action, String operator, String reason) {
        requireReason(reason);
        if (!ACTIONS.contains(action)) {
            throw ApiException.invalid("action", "must be one of " + ACTIONS);
        }
        UUID rid = resolve(anyId);
        Map<String, Object> before = snapshot(rid);
        long version = ((Number) before.get("reservation_version")).longValue();
        Repairs.Result result = repairs.run("MANUAL_" + action.toUpperCase().replace('-', '_'), "RESERVATION", rid.toString(),
                version, action, operator, reason, before, () -> act(rid, action, before));
        if (result == Repairs.Result.FAILED) {
            throw new ApiException(HttpStatus.CONFLICT, "REPAIR_FAILED", "repair " + action + " of " + rid
                    + " failed; see repair_task and the logs");
        }
        Map<String, Object> after = snapshot(rid);
        holds.audit(operator, "REPAIR_" + action.toUpperCase().replace('-', '_'), "RESERVATION", rid.toString(), before, after,
                Map.of("query", anyId, "repair_id", Repairs.repairId("MANUAL_" + action.toUpperCase().replace('-', '_'),
                        rid.toString(), version, action), "result", result.name()), reason);
        return Map.of("reservation_id", rid.toString(), "action", action, "result", result.name(), "before", before,
                "after", after);
    }

    private String act(UUID rid, String action, Map<String, Object> before) {
        return switch (action) {
            case "release-hold" -> releaseHold(rid, before);
            case "compensate" -> {
                String released = releaseHold(rid, before);
                String status = repo.reservation(rid).getFirst().get("status").toString();
                if ("COMPENSATED".equals(status)) {
                    yield released + "; already COMPENSATED, nothing to do";
                }
                if (!"ORDER_REJECTED".equals(status) && !"COMPENSATING".equals(status)) {
                    throw new IllegalStateException("only a rejected reservation is compensated; this one is " + status);
                }
                tasks.insertRelease(List.of(rid));
                String owner = "runbook-" + UUID.randomUUID();
                CompensationTaskRepository.Claimed claimed = tasks.claim(CompensationTaskRepository.taskId(rid), owner,
                        Duration.ofSeconds(30)).orElseThrow(() -> new IllegalStateException("the compensation task is busy"));
                compensation.apply(claimed, owner);
                yield released + "; compensation task applied: " + repo.reservation(rid).getFirst().get("status");
            }
            case "rebuild-projection" -> rebuildProjection(rid, before);
            case "refund" -> {
                Object orderId = before.get("order_id");
                if (orderId == null || !"CANCELLED".equals(before.get("order_status"))) {
                    throw new IllegalStateException("a refund is for money kept by a cancelled order");
                }
                UUID paymentId = PaymentService.paymentId((UUID) orderId);
                yield payments.startRefund(paymentId, PaymentService.refundId(paymentId)) ? "refund started"
                        : "refund already started";
            }
            default -> throw new IllegalArgumentException(action);
        };
    }

    private String releaseHold(UUID rid, Map<String, Object> before) {
        Optional<String> previous = holds.release("RESERVATION", rid.toString());
        if (before.get("order_id") != null) {
            holds.release("ORDER", before.get("order_id").toString());
        }
        if (previous.isEmpty()) {
            return "no hold";
        }
        boolean restored = repo.unfreezeReservation(rid, previous.get());
        int taskCount = repo.unfreezeTasks(rid);
        return "hold released (reservation back to " + (restored ? previous.get() : before.get("reservation_status"))
                + ", " + taskCount + " tasks runnable)";
    }

    private String rebuildProjection(UUID rid, Map<String, Object> before) {
        String status = (String) before.get("reservation_status");
        Object orderId = before.get("order_id");
        if (orderId == null) {
            throw new IllegalStateException("no order: nothing to project (reservation " + status + ")");
        }
        String orderStatus = (String) before.get("order_status");
        String expected = OrderProjection.redisStatus(orderStatus);
        SkuSlot slot = slot((Long) before.get("activity_id"), (Long) before.get("sku_id"), (Long) before.get("user_id"));
        Map<String, Object> res = repo.reservation(rid).getFirst();
        if (redis.sync().exists(slot.reservation(rid.toString())) == 0) {
            return "hash restored: " + LuaScript.text(projection.restoreHash(slot, rid.toString(), orderId.toString(), expected,
                    (Long) before.get("user_id"), res.get("request_id").toString(), res.get("message_id").toString()), 1);
        }
        return LuaScript.text(projection.project(slot, rid.toString(), orderId.toString(), expected), 1);
    }

    /** Changes a SKU's stock mid-sale through the ledger, in PostgreSQL then Redis, once per adjustment id. */
    public Map<String, Object> adjustStock(long activityId, long skuId, int delta, UUID adjustmentId, String operator,
            String reason) {
        requireReason(reason);
        if (delta == 0) {
            throw ApiException.invalid("delta", "must not be zero");
        }
        Activity a = registry.load(activityId).orElseThrow(() -> new ApiException(HttpStatus.NOT_FOUND, "ACTIVITY_NOT_FOUND",
                "no activity " + activityId));
        Activity.Sku sku = a.sku(skuId);
        if (sku == null) {
            throw new ApiException(HttpStatus.NOT_FOUND, "SKU_NOT_FOUND", "no sku " + skuId + " in activity " + activityId,
                    "sku_id", null);
        }
        List<ActivityService.InventoryView> before = activities.inventoryView(activityId);
        tx.executeWithoutResult(s -> {
            if (repo.insertAdjustment(adjustmentId, activityId, skuId, delta, reason, operator)) {
                if (!repo.adjustPg(activityId, skuId, delta)) {
                    throw new ApiException(HttpStatus.CONFLICT, "STOCK_ADJUSTMENT_REFUSED", "available stock of sku " + skuId
                            + " cannot go below zero", "delta", null);
                }
                repo.adjustLedger(adjustmentId, activityId, skuId, delta);
            }
        });
        RunbookRepository.Adjustment adj = repo.adjustment(adjustmentId).orElseThrow();
        if (adj.activityId() != activityId || adj.skuId() != skuId || adj.delta() != delta) {
            throw new ApiException(HttpStatus.CONFLICT, "ADJUSTMENT_ID_CONFLICT", "adjustment " + adjustmentId
                    + " was recorded as " + adj, "adjustment_id", null);
        }
        String redisResult = adjustments.applyRedis(adjustmentId);
        List<ActivityService.InventoryView> after = activities.inventoryView(activityId);
        holds.audit(operator, "ADJUST_STOCK", "SKU", activityId + ":" + skuId, before.toString(), after.toString(),
                Map.of("adjustment_id", adjustmentId.toString(), "delta", delta, "redis", redisResult), reason);
        log.warn("runbook.adjust_stock activity_id={} sku_id={} delta={} adjustment_id={} operator={} reason={}", activityId,
                skuId, delta, adjustmentId, operator, reason);
        return Map.of("adjustment_id", adjustmentId.toString(), "delta", delta, "redis", redisResult, "inventory",
                after.stream().filter(v -> v.pg().skuId() == skuId).map(Object::toString).toList());
    }

    /** Stops admission, drains, reconciles a last time, reports, and lets the sale's Redis keys expire. */
    public Map<String, Object> closeOut(long activityId, String operator, String reason, Duration drainTimeout)
            throws InterruptedException {
        requireReason(reason);
        Activity a = registry.load(activityId).orElseThrow(() -> new ApiException(HttpStatus.NOT_FOUND, "ACTIVITY_NOT_FOUND",
                "no activity " + activityId));
        if ("OPEN".equals(a.status())) {
            activities.close(activityId);
        }
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        Map<String, Object> pending;
        while (true) {
            pending = pipeline(activityId);
            if (pending.isEmpty() || System.nanoTime() > deadline) {
                break;
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        Reconciler.Report rec = reconciler.run(activityId, Duration.ofMillis(1));
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("activity_id", activityId);
        report.put("drained", pending.isEmpty());
        report.put("still_in_flight", pending);
        report.put("orders", repo.countBy("orders", "status", activityId));
        report.put("reservations", repo.countBy("inventory_reservation", "status", activityId));
        report.put("ledger", repo.countBy("inventory_ledger", "change_type", activityId));
        report.put("payments", payments.paymentCounts(activityId));
        report.put("open_anomalies", repo.countBy("reconcile_anomaly", "anomaly_type", activityId));
        report.put("inventory", activities.inventoryView(activityId).stream().map(Object::toString).toList());
        report.put("final_reconcile", rec.toMap());
        List<InvariantChecker.Check> checks = invariants.check(activityId, pending.isEmpty());
        report.put("invariants_pass", checks.stream().allMatch(InvariantChecker.Check::pass));
        report.put("invariants", checks);
        if (pending.isEmpty()) {
            expireKeys(registry.load(activityId).orElseThrow(), Duration.ofDays(7));
            repo.closedOut(activityId);
            reconciler.forget(activityId);
        }
        holds.audit(operator, "CLOSE_OUT", "ACTIVITY", Long.toString(activityId), Map.of("status", a.status()),
                Map.of("drained", pending.isEmpty()), Map.of("orders", report.get("orders")), reason);
        return report;
    }

    private Map<String, Object> pipeline(long activityId) {
        Map<String, Object> pending = new LinkedHashMap<>();
        for (ActivityService.InventoryView v : activities.inventoryView(activityId)) {
            if (v.redis().openReserved() != 0) {
                pending.put("sku " + v.pg().skuId() + " open reservations", v.redis().openReserved());
            }
        }
        long outbox = repo.activityOutbox(activityId);
        if (outbox > 0) {
            pending.put("unsent events", outbox);
        }
        long unsettled = repo.unsettledTasks(activityId);
        if (unsettled > 0) {
            pending.put("compensation tasks not applied", unsettled);
        }
        return pending;
    }

    private void expireKeys(Activity a, Duration ttl) {
        for (Activity.Sku sku : a.skus()) {
            for (int b = 0; b < sku.buckets(); b++) {
                SkuSlot slot = new SkuSlot(a.activityId(), sku.skuId(), b, sku.buckets());
                for (String key : List.of(slot.stock(), slot.counter(), slot.meta(), slot.sendDue(), slot.deadlines())) {
                    redis.sync().pexpire(key, ttl.toMillis());
                }
            }
        }
    }

    /** Every live sale's invariants (design 11.6 step 6, 13.4). */
    public Map<String, Object> invariants(Long activityId) {
        List<Activity> sales = activityId == null ? registry.live() : registry.load(activityId).map(List::of).orElseThrow(
                () -> new ApiException(HttpStatus.NOT_FOUND, "ACTIVITY_NOT_FOUND", "no activity " + activityId));
        List<Map<String, Object>> out = new ArrayList<>();
        boolean pass = true;
        for (Activity a : sales) {
            List<InvariantChecker.Check> checks = invariants.check(a.activityId(), true);
            boolean ok = checks.stream().allMatch(InvariantChecker.Check::pass);
            pass &= ok;
            out.add(Map.of("activity_id", a.activityId(), "pass", ok, "checks", checks));
        }
        return Map.of("pass", pass, "activities", out, "checked_at", Instant.now().toString());
    }

    private Map<String, Object> snapshot(UUID rid) {
        Map<String, Object> res = repo.reservation(rid).getFirst();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("reservation_status", res.get("status"));
        s.put("reservation_version", res.get("version"));
        s.put("activity_id", res.get("activity_id"));
        s.put("sku_id", res.get("sku_id"));
        s.put("user_id", res.get("user_id"));
        List<Map<String, Object>> order = repo.order(rid);
        s.put("order_id", order.isEmpty() ? null : order.getFirst().get("order_id"));
        s.put("order_status", order.isEmpty() ? null : order.getFirst().get("status"));
        s.put("tasks", repo.tasks(rid).stream().map(t -> t.get("status")).toList());
        SkuSlot slot = slot((Long) res.get("activity_id"), (Long) res.get("sku_id"), (Long) res.get("user_id"));
        s.put("redis_status", redis.sync().hget(slot.reservation(rid.toString()), "status"));
        s.put("held", !holds.holds(List.of(rid.toString())).isEmpty());
        return s;
    }

    private Map<String, Object> redisEvidence(Map<String, Object> res, UUID rid) {
        SkuSlot slot = slot((Long) res.get("activity_id"), (Long) res.get("sku_id"), (Long) res.get("user_id"));
        String r = rid.toString();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("reservation_hash", redis.sync().hgetall(slot.reservation(r)));
        m.put("compensation_marker", redis.sync().get(slot.compensationMarker(r)));
        m.put("release_marker", redis.sync().get(slot.releaseMarker(r)));
        m.put("user_mark", redis.sync().get(slot.user((Long) res.get("user_id"))));
        m.put("send_due_score", redis.sync().zscore(slot.sendDue(), r));
        m.put("deadline_score", redis.sync().zscore(slot.deadlines(), r));
        return m;
    }

    private synchronized Object mqEvidence(UUID rid) {
        try {
            if (mqQuery == null) {
                DefaultMQProducer p = new DefaultMQProducer("seckill-inspect");
                p.setNamesrvAddr(props.mq().namesrv());
                p.setInstanceName(MqClients.instanceName("inspect"));
                p.start();
                mqQuery = p;
            }
            @SuppressWarnings("deprecation")
            QueryResult q = mqQuery.queryMessage(props.mq().orderRequestTopic(), rid.toString(), 32, 0, Long.MAX_VALUE);
            List<Map<String, Object>> msgs = new ArrayList<>();
            for (MessageExt m : q.getMessageList()) {
                msgs.add(Map.of("topic", m.getTopic(), "broker_msg_id", m.getMsgId(), "keys", String.valueOf(m.getKeys()),
                        "stored_at", Instant.ofEpochMilli(m.getStoreTimestamp()).toString(), "reconsume_times",
                        m.getReconsumeTimes()));
            }
            return Map.of("order_request_messages", msgs);
        } catch (Exception e) {
            return "not available: " + e.getMessage();
        }
    }

    private SkuSlot slot(long activityId, long skuId, long userId) {
        Activity a = registry.load(activityId).orElseThrow();
        return SkuSlot.forUser(activityId, skuId, a.sku(skuId).buckets(), userId);
    }

    private UUID resolve(String anyId) {
        try {
            return repo.resolve(anyId.trim()).orElseThrow(() -> new ApiException(HttpStatus.NOT_FOUND, "OBJECT_NOT_FOUND",
                    "no reservation, request, message, order, payment or task has id " + anyId, "id", null));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("id", e.getMessage());
        }
    }

    private static List<String> ids(Map<String, Object> res, UUID orderId, UUID paymentId) {
        List<String> ids = new ArrayList<>();
        ids.add(res.get("reservation_id").toString());
        ids.add(res.get("request_id").toString());
        ids.add(res.get("message_id").toString());
        if (orderId != null) {
            ids.add(orderId.toString());
            ids.add(paymentId.toString());
        }
        ids.add(CompensationTaskRepository.taskId((UUID) res.get("reservation_id")).toString());
        return ids;
    }

    private static void requireReason(String reason) {
        if (reason == null || reason.isBlank()) {
            throw ApiException.invalid("reason", "is required for every manual action");
        }
    }
}
