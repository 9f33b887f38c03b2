package io.seckill.payment;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.order.OrderRecord;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.paysim.PaySim;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Fault row 16: a payment and the timeout cancel race. Every interleaving of the payment's steps
 * (P1 the channel takes the money, P2 its callback arrives) with the cancel's steps (C1 CAS to
 * CANCEL_PENDING, C2 close at the channel, C3 act on the channel's answer) is run as an explicit
 * schedule, with and without a channel that takes money after a close. After every step PostgreSQL
 * conservation holds and no paid order is cancelled without its money going back.
 */
class PaymentCancelRaceIT extends PaymentTestBase {

    private static final List<String> PAY = List.of("P1", "P2");
    private static final List<String> CANCEL = List.of("C1", "C2", "C3");

    @AfterEach
    void normalChannel() {
        sim.knobs(PaySim.Knobs.NORMAL);
    }

    @Test
    @DisplayName(
            "fault #16: payment success and timeout cancel, every interleaving: paid is never cancelled, released exactly once")
    void everyInterleaving() throws Exception {
        List<List<String>> schedules = interleavings(PAY, CANCEL);
        assertThat(schedules).hasSize(10);
        long activityId = openSale(2 * schedules.size() + 5);
        long user = 1000;
        int paid = 0, cancelled = 0, refunded = 0;
        for (boolean payAfterClose : new boolean[] {false, true}) {
            sim.knobs(payAfterClose ? PaySim.Knobs.NORMAL.payingAfterClose() : PaySim.Knobs.NORMAL);
            for (List<String> schedule : schedules) {
                String outcome = run(activityId, ++user, schedule, payAfterClose);
                switch (outcome) {
                    case "PAID" -> paid++;
                    case "CANCELLED" -> cancelled++;
                    case "CANCELLED+REFUNDED" -> refunded++;
                    default -> throw new AssertionError(outcome);
                }
            }
        }
        assertThat(paid).as("schedules where the payment won").isPositive();
        assertThat(cancelled).as("schedules where the cancel won").isPositive();
        assertThat(refunded).as("schedules where money came after the cancel").isPositive();
        awaitSettled(activityId, 2L * schedules.size());
        assertInvariants(activityId, true);
    }

    private String run(long activityId, long userId, List<String> schedule, boolean payAfterClose) throws Exception {
        String label = schedule + (payAfterClose ? " pay-after-close" : "");
        UUID order = placeOrder(activityId, 1, userId), payment = startPayment(userId, order);
        String owner = "race-" + userId;
        Optional<OrderRecord> claimed = Optional.empty();
        PaymentChannel.State closed = null;
        boolean paidBeforeClose = false;
        for (String step : schedule) {
            switch (step) {
                case "P1" -> {
                    boolean taken = sim.pay(payment, false);
                    paidBeforeClose = taken && claimed.isEmpty() && closed == null;
                }
                case "P2" -> {
                    if (sim.payment(payment).status() == PaymentChannel.Status.SUCCESS) {
                        assertThat(deliverCallback(payment).statusCode())
                                .as(label)
                                .isEqualTo(200);
                    }
                }
                case "C1" -> {
                    expire(order);
                    canceller.markExpired(100);
                }
                case "C2" -> {
                    claimed = orders.claimCancel(order, owner, java.time.Duration.ofSeconds(30));
                    if (claimed.isPresent()) {
                        closed = canceller.closeAtChannel(claimed.get());
                    }
                }
                case "C3" -> {
                    if (claimed.isPresent()) {
                        canceller.decide(claimed.get(), owner, closed);
                    }
                }
                default -> throw new IllegalArgumentException(step);
            }
            assertPgConserved(activityId, 1);
            assertThat(count(
                            "SELECT count(*) FROM orders o JOIN payment_record p ON p.order_id = o.order_id "
                                    + "WHERE o.order_id = ? AND o.status = 'CANCELLED' AND p.refund_status IS NULL",
                            order))
                    .as(label + " after " + step + ": a cancelled order keeps money without a refund")
                    .isZero();
        }
        worker.refunds("race-refunds");

        String status = orderStatus(order);
        boolean moneyTaken = sim.payment(payment).status() != PaymentChannel.Status.WAITING
                && sim.payment(payment).status() != PaymentChannel.Status.CLOSED;
        if (paidBeforeClose) {
            assertThat(status)
                    .as(label + ": the channel had the money before the close")
                    .isEqualTo("PAID");
        }
        switch (status) {
            case "PAID" -> {
                assertThat(moneyTaken).as(label).isTrue();
                assertThat(ledger(order, "SELL")).as(label).isOne();
                assertThat(ledger(order, "RELEASE")).as(label).isZero();
                return "PAID";
            }
            case "CANCELLED" -> {
                assertThat(ledger(order, "RELEASE"))
                        .as(label + ": released exactly once")
                        .isOne();
                assertThat(ledger(order, "SELL")).as(label).isZero();
                if (!moneyTaken) {
                    assertThat(count("SELECT count(*) FROM payment_record WHERE order_id = ?", order))
                            .as(label)
                            .isZero();
                    return "CANCELLED";
                }
                assertThat(payAfterClose)
                        .as(label + ": money after a close only when the channel takes it anyway")
                        .isTrue();
                assertThat(jdbc.queryForObject(
                                "SELECT refund_status FROM payment_record WHERE order_id = ?", String.class, order))
                        .as(label)
                        .isEqualTo("REFUNDED");
                assertThat(count(
                                "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'PAID_AFTER_CANCEL' "
                                        + "AND object_id = ?",
                                payment.toString()))
                        .as(label)
                        .isOne();
                return "CANCELLED+REFUNDED";
            }
            default -> throw new AssertionError(label + ": order left " + status);
        }
    }

    /** Every merge of two step sequences that keeps each sequence's own order. */
    static List<List<String>> interleavings(List<String> a, List<String> b) {
        List<List<String>> out = new ArrayList<>();
        merge(a, 0, b, 0, new ArrayList<>(), out);
        return out;
    }

    private static void merge(
            List<String> a, int i, List<String> b, int j, List<String> prefix, List<List<String>> out) {
        if (i == a.size() && j == b.size()) {
            out.add(List.copyOf(prefix));
            return;
        }
        if (i < a.size()) {
            prefix.add(a.get(i));
            merge(a, i + 1, b, j, prefix, out);
            prefix.removeLast();
        }
        if (j < b.size()) {
            prefix.add(b.get(j));
            merge(a, i, b, j + 1, prefix, out);
            prefix.removeLast();
        }
    }
}
