package io.seckill.payment;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.order.Orders;
import io.seckill.paysim.PaySim;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TestPaySim;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Autowired;

/** Helpers of the payment tests: orders, the simulator, signed callbacks over HTTP. */
public abstract class PaymentTestBase extends IntegrationTest {

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @Autowired
    protected PaymentWorker worker;

    @Autowired
    protected OrderCanceller canceller;

    @Autowired
    protected PaymentRepository payments;

    @Autowired
    protected Orders orders;

    protected final PaySim sim = TestPaySim.get();

    /** The buyer starts paying: order PAYING, a payment opened at the channel. */
    protected UUID startPayment(long userId, UUID orderId) throws Exception {
        SaleClient.Response r = client().post("/api/v1/orders/" + orderId + "/payments", userToken(userId), null);
        assertThat(r.status()).as(r.body().toString()).isEqualTo(201);
        return UUID.fromString((String) r.body().get("payment_id"));
    }

    /** A new sale of {@code stock} units with one order of {@code userId}, its payment opened at the channel. */
    protected record Paying(long activityId, UUID order, UUID payment) {}

    protected Paying paying(int stock, long userId) throws Exception {
        long activityId = openSale(stock);
        UUID order = placeOrder(activityId, 1, userId);
        return new Paying(activityId, order, startPayment(userId, order));
    }

    /** {@link #paying} whose payment time ran out: the canceller closed the channel's payment and cancelled the order. */
    protected Paying cancelledUnpaid(int stock, long userId) throws Exception {
        Paying p = paying(stock, userId);
        expire(p.order());
        worker.runOnce("canceller-" + userId);
        assertThat(orderStatus(p.order())).isEqualTo("CANCELLED");
        return p;
    }

    /**
     * {@link #cancelledUnpaid}, and then the channel takes the buyer's money anyway, with no callback
     * (one is delivered, or not, by the test): the money this side must give back.
     */
    protected Paying takenAfterCancel(int stock, long userId) throws Exception {
        Paying p = cancelledUnpaid(stock, userId);
        sim.knobs(PaySim.Knobs.NORMAL.payingAfterClose());
        assertThat(sim.pay(p.payment(), false))
                .as("the channel takes the money after the close")
                .isTrue();
        return p;
    }

    /** The one order of {@code p}'s sale went through the pipeline, and every guarantee holds for the sale. */
    protected void assertSettled(Paying p) {
        awaitSettled(p.activityId(), 1);
        assertInvariants(p.activityId(), true);
    }

    /** The channel takes the money and sends nothing yet: the callback it would send, signed now. */
    protected PaySim.SignedCallback paidCallback(Paying p) throws Exception {
        assertThat(sim.pay(p.payment(), false))
                .as("the channel takes the money")
                .isTrue();
        return sim.signedCallback(p.payment(), Instant.now().getEpochSecond());
    }

    /** The channel's callback for a payment, signed now, delivered to the app: HTTP status and body. */
    protected HttpResponse<String> deliverCallback(UUID paymentId) throws Exception {
        return deliver(sim.signedCallback(paymentId, Instant.now().getEpochSecond()));
    }

    protected HttpResponse<String> deliver(PaySim.SignedCallback cb) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/api/v1/payments/callbacks/paysim"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(cb.body()));
        cb.headers().forEach(b::header);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    protected String orderStatus(UUID orderId) {
        return jdbc.queryForObject("SELECT status FROM orders WHERE order_id = ?", String.class, orderId);
    }

    /** Makes the order's payment time run out now (the timer itself is what the tests exercise). */
    protected void expire(UUID orderId) {
        jdbc.update(
                "UPDATE orders SET expires_at = clock_timestamp() - interval '1 second' WHERE order_id = ?", orderId);
    }

    protected long ledger(UUID orderId, String type) {
        return count("SELECT count(*) FROM inventory_ledger WHERE order_id = ? AND change_type = ?", orderId, type);
    }

    protected long events(UUID orderId, String type) {
        return count("SELECT count(*) FROM event_outbox WHERE aggregate_id = ? AND event_type = ?", orderId, type);
    }

    /** PostgreSQL conservation of one SKU: initial = available + occupied + sold. */
    protected void assertPgConserved(long activityId, long skuId) {
        Long delta = jdbc.queryForObject(
                "SELECT initial_stock - available_stock - occupied_stock - sold_stock "
                        + "FROM sku_inventory WHERE activity_id = ? AND sku_id = ?",
                Long.class,
                activityId,
                skuId);
        assertThat(delta).as("PG initial - available - occupied - sold").isZero();
    }
}
