package io.seckill.payment;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.json.Json;
import io.seckill.payment.channel.CallbackSignature;
import io.seckill.paysim.PaySim;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.support.TestPaySim;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PaymentIT extends PaymentTestBase {

    @AfterEach
    void normalChannel() {
        sim.knobs(PaySim.Knobs.NORMAL);
    }

    @Test
    @DisplayName("a paid order: callback -> PAID, stock occupied -> sold with a ledger row, PAID projected into Redis")
    void paidOrder() throws Exception {
        Paying p = paying(3, 1);
        assertThat(orderStatus(p.order())).isEqualTo("PAYING");
        assertThat(startPayment(1, p.order()))
                .as("a second 'pay' returns the same payment")
                .isEqualTo(p.payment());
        long timedBefore = meters.timer("payment.callback.paid.latency").count();

        assertThat(sim.pay(p.payment(), true)).isTrue();
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> orderStatus(p.order()).equals("PAID"));
        assertThat(meters.timer("payment.callback.paid.latency").count())
                .as("callback -> PAID timed")
                .isGreaterThan(timedBefore);
        assertThat(ledger(p.order(), "SELL")).isOne();
        assertThat(events(p.order(), "ORDER_PAID")).isOne();
        awaitSettled(p.activityId(), 1);
        UUID reservation =
                jdbc.queryForObject("SELECT reservation_id FROM orders WHERE order_id = ?", UUID.class, p.order());
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> "PAID"
                        .equals(redis.sync()
                                .hget(
                                        SkuSlot.forUser(p.activityId(), 1, 1, 1).reservation(reservation.toString()),
                                        "status")));
        SaleClient.Response view = client().get("/api/v1/reservations/" + reservation, userToken(1));
        assertThat(view.body()).containsEntry("state", "ORDER_CREATED").containsEntry("order_status", "PAID");
        assertThat(count("SELECT sold_stock FROM sku_inventory WHERE activity_id = ? AND sku_id = 1", p.activityId()))
                .isOne();

        assertThat(client().post("/api/v1/orders/" + p.order() + "/payments", userToken(1), null)
                        .code())
                .isEqualTo("ORDER_ALREADY_PAID");
        assertThat(client().post("/api/v1/orders/" + p.order() + "/cancel", userToken(1), null)
                        .code())
                .isEqualTo("ORDER_ALREADY_PAID");
        assertThat(client().get("/api/v1/orders/" + p.order(), userToken(2)).status())
                .as("owner only")
                .isEqualTo(404);
        assertInvariants(p.activityId(), true);
    }

    @Test
    @DisplayName(
            "fault #17: 1,000 concurrent duplicate callbacks -> one payment_record, one PAID transition, one ORDER_PAID")
    void duplicateCallbacks() throws Exception {
        Paying p = paying(2, 7);
        PaySim.SignedCallback cb = paidCallback(p);

        ExecutorService pool = Executors.newFixedThreadPool(48);
        List<Future<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            sent.add(pool.submit(() -> deliver(cb)));
        }
        Map<String, Integer> results = new LinkedHashMap<>();
        for (Future<HttpResponse<String>> f : sent) {
            HttpResponse<String> r = f.get();
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            results.merge((String) Json.read(r.body().getBytes(), Map.class).get("result"), 1, Integer::sum);
        }
        pool.shutdown();

        assertThat(results).containsEntry("PAID", 1).containsEntry("ALREADY_PAID", 999);
        assertThat(count("SELECT count(*) FROM payment_record WHERE order_id = ?", p.order()))
                .isOne();
        assertThat(count("SELECT version FROM orders WHERE order_id = ?", p.order()))
                .as("CREATED->PAYING->PAID")
                .isEqualTo(2);
        assertThat(ledger(p.order(), "SELL")).isOne();
        assertThat(events(p.order(), "ORDER_PAID")).isOne();
        assertSettled(p);
    }

    @Test
    @DisplayName("fault #18: duplicate cancel timers and a redelivered ORDER_CANCELLED release the unit exactly once")
    void duplicateCancelTimers() throws Exception {
        long activityId = openSale(2);
        UUID order = placeOrder(activityId, 1, 11);
        startPayment(11, order);
        awaitSettled(activityId, 1);
        long redisStockBefore = redisStock(activityId);
        expire(order);

        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Integer>> passes = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String owner = "timer-" + (i % 4);
            passes.add(pool.submit(() -> worker.runOnce(owner)));
        }
        for (Future<Integer> f : passes) {
            f.get();
        }
        pool.shutdown();
        worker.runOnce("timer-late");

        assertThat(orderStatus(order)).isEqualTo("CANCELLED");
        assertThat(ledger(order, "RELEASE")).isOne();
        assertThat(events(order, "ORDER_CANCEL_PENDING")).isOne();
        assertThat(events(order, "ORDER_CANCELLED")).isOne();
        assertThat(jdbc.queryForObject(
                        "SELECT r.status FROM inventory_reservation r JOIN orders o ON o.reservation_id = "
                                + "r.reservation_id WHERE o.order_id = ?",
                        String.class,
                        order))
                .isEqualTo("CANCELLED");
        assertThat(count("SELECT available_stock FROM sku_inventory WHERE activity_id = ? AND sku_id = 1", activityId))
                .isEqualTo(2);
        awaitSettled(activityId, 1);
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> redisStock(activityId) == redisStockBefore + 1);

        // the same ORDER_CANCELLED again (a redelivery): the release marker answers, stock does not move
        UUID reservation =
                jdbc.queryForObject("SELECT reservation_id FROM orders WHERE order_id = ?", UUID.class, order);
        SkuSlot slot = SkuSlot.forUser(activityId, 1, 1, 11);
        List<Object> again = io.seckill.redis.LuaScript.load("release_on_cancel")
                .run(
                        redis,
                        new String[] {
                            slot.reservation(reservation.toString()),
                            slot.stock(),
                            slot.counter(),
                            slot.releaseMarker(reservation.toString())
                        },
                        reservation.toString(),
                        order.toString(),
                        "release:" + order,
                        "60000");
        assertThat(ScriptReply.text(again, 1)).isEqualTo("ALREADY_RELEASED");
        assertThat(redisStock(activityId)).isEqualTo(redisStockBefore + 1);
        assertInvariants(activityId, true);
        SaleClient.Response view = client().get("/api/v1/reservations/" + reservation, userToken(11));
        assertThat(view.body()).containsEntry("state", "CANCELLED");
    }

    @Test
    @DisplayName(
            "forged signature, stale timestamp, wrong amount, unknown order: refused with a clear error, nothing written")
    void refusedCallbacks() throws Exception {
        Paying p = paying(2, 21);
        PaySim.SignedCallback good = paidCallback(p);

        CallbackSignature forger = new CallbackSignature("not-the-channel-secret-0123456789abcdef");
        assertRefused(
                new PaySim.SignedCallback(good.body(), good.timestamp(), forger.sign(good.timestamp(), good.body())),
                401,
                "X-Pay-Signature");
        assertRefused(sim.signedCallback(p.payment(), good.timestamp() - 3600), 401, "X-Pay-Timestamp");

        @SuppressWarnings("unchecked")
        Map<String, Object> body = new LinkedHashMap<>(Json.read(good.body(), Map.class));
        body.put("amount", "0.01");
        assertRefused(signed(body, good.timestamp()), 400, "amount");
        UUID stranger = UUID.randomUUID();
        body.put("amount", "10.50");
        body.put("order_id", stranger.toString());
        body.put("payment_id", PaymentService.paymentId(stranger).toString());
        assertRefused(signed(body, good.timestamp()), 404, "order_id");

        assertThat(orderStatus(p.order())).isEqualTo("PAYING");
        assertThat(count("SELECT count(*) FROM payment_record WHERE order_id = ?", p.order()))
                .isZero();
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE object_id IN (?, ?)",
                        p.payment().toString(),
                        PaymentService.paymentId(stranger).toString()))
                .isZero();
        assertThat(ledger(p.order(), "SELL")).isZero();

        assertThat(deliver(good).statusCode())
                .as("the genuine callback still works")
                .isEqualTo(200);
        assertThat(orderStatus(p.order())).isEqualTo("PAID");
    }

    @Test
    @DisplayName(
            "a signed REFUNDED callback never pays an unpaid order: ignored, nothing written; the SUCCESS one still pays")
    void refundedCallbackNeverPays() throws Exception {
        Paying p = paying(2, 23);
        PaySim.SignedCallback good = paidCallback(p);
        @SuppressWarnings("unchecked")
        Map<String, Object> body = new LinkedHashMap<>(Json.read(good.body(), Map.class));
        body.put("status", "REFUNDED");

        HttpResponse<String> r = deliver(signed(body, good.timestamp()));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("IGNORED");
        assertThat(orderStatus(p.order())).isEqualTo("PAYING");
        assertThat(count("SELECT count(*) FROM payment_record WHERE order_id = ?", p.order()))
                .isZero();
        assertThat(ledger(p.order(), "SELL")).isZero();
        assertThat(deliver(good).statusCode()).isEqualTo(200);
        assertThat(orderStatus(p.order())).isEqualTo("PAID");
        assertPgConserved(p.activityId(), 1);
    }

    @Test
    @DisplayName(
            "money taken after the local cancel: payment recorded, anomaly raised, refunded; the order stays CANCELLED")
    void paidAfterCancel() throws Exception {
        Paying p = takenAfterCancel(2, 31);
        HttpResponse<String> r = deliverCallback(p.payment());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("REFUNDING");
        assertThat(orderStatus(p.order())).isEqualTo("CANCELLED");
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'PAID_AFTER_CANCEL' AND object_id = ?",
                        p.payment().toString()))
                .isOne();
        assertThat(ledger(p.order(), "SELL")).isZero();

        worker.refunds("refunder");
        assertThat(jdbc.queryForObject(
                        "SELECT refund_status FROM payment_record WHERE payment_id = ?", String.class, p.payment()))
                .isEqualTo("REFUNDED");
        assertThat(sim.payment(p.payment()).status().name()).isEqualTo("REFUNDED");
        assertThat(deliverCallback(p.payment()).body()).contains("REFUNDED");
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE object_id = ?",
                        p.payment().toString()))
                .isOne();
        assertSettled(p);
    }

    @Test
    @DisplayName(
            "one expired order that cannot be cancelled beside a healthy one: the healthy one is cancelled, the poison "
                    + "one stays CANCEL_PENDING with backoff and is an anomaly past the bound; once it can be, it is cancelled too")
    void poisonCancelBesideHealthyOne() throws Exception {
        long activityId = openSale(3, 3);
        UUID healthy = placeOrder(activityId, 1, 51);
        UUID poison = placeOrder(activityId, 2, 52);
        awaitSettled(activityId, 2);
        // PostgreSQL says SKU 2 has no occupied unit to release: the final cancel of the poison order must fail
        jdbc.update(
                "UPDATE sku_inventory SET occupied_stock = occupied_stock - 1, available_stock = available_stock + 1 "
                        + "WHERE activity_id = ? AND sku_id = 2",
                activityId);
        expire(healthy);
        expire(poison);
        try {
            for (int attempt = 0; attempt < 2; attempt++) {
                jdbc.update("UPDATE orders SET cancel_next_at = clock_timestamp() WHERE order_id = ?", poison);
                worker.runOnce("poison-canceller");
            }
            assertThat(orderStatus(healthy)).isEqualTo("CANCELLED");
            assertThat(orderStatus(poison)).isEqualTo("CANCEL_PENDING");
            assertThat(count(
                            "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'CANCEL_STALLED' AND object_id = ? "
                                    + "AND status = 'OPEN'",
                            poison.toString()))
                    .isEqualTo(1);
        } finally {
            jdbc.update(
                    "UPDATE sku_inventory SET occupied_stock = occupied_stock + 1, available_stock = available_stock - 1 "
                            + "WHERE activity_id = ? AND sku_id = 2",
                    activityId);
        }
        jdbc.update("UPDATE orders SET cancel_next_at = clock_timestamp() WHERE order_id = ?", poison);
        worker.runOnce("poison-canceller");
        assertThat(orderStatus(poison)).isEqualTo("CANCELLED");
        awaitSettled(activityId, 2);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName("a refund the channel cannot make (it has no such payment) beside a healthy one: the healthy one is "
            + "refunded, the poison one stays REFUNDING with backoff and is an anomaly past the bound")
    void poisonRefundBesideHealthyOne() throws Exception {
        Paying p = takenAfterCancel(3, 61);
        assertThat(deliverCallback(p.payment()).body()).contains("REFUNDING");
        UUID poison = UUID.randomUUID();
        jdbc.update("""
                INSERT INTO payment_record (payment_id, order_id, provider, provider_transaction_id, amount, status, paid_at,
                                            refund_status, refund_id, refund_next_at)
                VALUES (?, ?, 'paysim', ?, 10.50, 'SUCCESS', clock_timestamp(), 'REFUNDING', ?, clock_timestamp())""", poison, p.order(), "unknown-to-the-channel-" + poison, UUID.randomUUID());
        try {
            for (int attempt = 0; attempt < 2; attempt++) {
                jdbc.update(
                        "UPDATE payment_record SET refund_next_at = clock_timestamp() WHERE payment_id = ?", poison);
                worker.refunds("refunder-61");
            }
            assertThat(jdbc.queryForObject(
                            "SELECT refund_status FROM payment_record WHERE payment_id = ?", String.class, p.payment()))
                    .isEqualTo("REFUNDED");
            assertThat(jdbc.queryForObject(
                            "SELECT refund_status FROM payment_record WHERE payment_id = ?", String.class, poison))
                    .isEqualTo("REFUNDING");
            assertThat(count(
                            "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'REFUND_STALLED' AND object_id = ? "
                                    + "AND status = 'OPEN'",
                            poison.toString()))
                    .isEqualTo(1);
        } finally {
            jdbc.update("DELETE FROM payment_record WHERE payment_id = ?", poison);
        }
    }

    @Test
    @DisplayName(
            "the buyer cancels an unpaid order: released once, cancel is repeatable, paying it afterwards is refused")
    void buyerCancels() throws Exception {
        long activityId = openSale(3);
        UUID order = placeOrder(activityId, 1, 41);
        SaleClient.Response r = client().post("/api/v1/orders/" + order + "/cancel", userToken(41), null);
        assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
        assertThat(r.body()).containsEntry("status", "CANCELLED").containsEntry("cancel_reason", "BUYER_CANCELLED");
        assertThat(client().post("/api/v1/orders/" + order + "/cancel", userToken(41), null)
                        .body())
                .containsEntry("status", "CANCELLED");
        assertThat(client().post("/api/v1/orders/" + order + "/payments", userToken(41), null)
                        .code())
                .isEqualTo("ORDER_CANCELLED");
        assertThat(client().post("/api/v1/orders/" + order + "/cancel", userToken(42), null)
                        .status())
                .isEqualTo(404);
        assertThat(ledger(order, "RELEASE")).isOne();
        awaitSettled(activityId, 1);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "a channel that cannot answer keeps the order CANCEL_PENDING (unknown is not unpaid); paid meanwhile -> PAID")
    void channelUnavailableDuringCancel() throws Exception {
        Paying p = paying(2, 51);
        expire(p.order());
        sim.knobs(PaySim.Knobs.NORMAL.failingQueries(100));
        worker.runOnce("canceller-51");
        assertThat(orderStatus(p.order())).isEqualTo("CANCEL_PENDING");
        UUID reservation =
                jdbc.queryForObject("SELECT reservation_id FROM orders WHERE order_id = ?", UUID.class, p.order());
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> "CANCEL_PENDING"
                        .equals(redis.sync()
                                .hget(
                                        SkuSlot.forUser(p.activityId(), 1, 1, 51)
                                                .reservation(reservation.toString()),
                                        "status")));

        sim.knobs(PaySim.Knobs.NORMAL);
        assertThat(sim.pay(p.payment(), false))
                .as("the buyer's payment went through while we could not ask")
                .isTrue();
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    worker.runOnce("canceller-51");
                    return orderStatus(p.order()).equals("PAID");
                });
        assertThat(ledger(p.order(), "RELEASE")).isZero();
        assertThat(ledger(p.order(), "SELL")).isOne();
        assertSettled(p);
    }

    private long redisStock(long activityId) {
        return Long.parseLong(redis.sync().get(SkuSlot.single(activityId, 1).stock()));
    }

    private PaySim.SignedCallback signed(Map<String, Object> body, long ts) {
        byte[] b = Json.bytes(body);
        return new PaySim.SignedCallback(b, ts, new CallbackSignature(TestPaySim.SECRET).sign(ts, b));
    }

    private void assertRefused(PaySim.SignedCallback cb, int status, String field) throws Exception {
        HttpResponse<String> r = deliver(cb);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(Json.read(r.body().getBytes(), Map.class)).containsEntry("field", field);
    }
}
