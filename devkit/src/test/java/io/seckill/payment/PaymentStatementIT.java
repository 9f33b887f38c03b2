package io.seckill.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.payment.PaymentStatementWorker.Pass;
import io.seckill.payment.PaymentStatementWorker.Result;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.paysim.PaySim;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** The channel's statement finds the money no callback reported, applies it once, and says what it cannot match. */
class PaymentStatementIT extends PaymentTestBase {

    @Autowired
    PaymentStatementWorker statement;

    @Autowired
    PaymentChannel channel;

    @Autowired
    MeterRegistry meters;

    /** Earlier tests of this JVM left the simulator with payments of their own: this class reads from now on. */
    @BeforeEach
    void checkpointNow() {
        jdbc.update("""
                INSERT INTO payment_statement_checkpoint (provider, checked_to) VALUES ('paysim', clock_timestamp())
                ON CONFLICT (provider) DO UPDATE SET checked_to = clock_timestamp()""");
    }

    @AfterEach
    void normalChannel() {
        sim.knobs(PaySim.Knobs.NORMAL);
    }

    @Test
    @DisplayName("money taken after the local cancel, whose callback never came: the statement records it, the refund "
            + "follows, and the next pass changes nothing")
    void paidAfterCancelWithoutCallback() throws Exception {
        Paying p = takenAfterCancel(2, 71);

        Pass pass = settle();
        assertThat(pass.count(Result.APPLIED)).isOne();
        assertThat(pass.checkedTo()).isEqualTo(pass.to());
        assertThat(orderStatus(p.order())).isEqualTo("CANCELLED");
        assertThat(jdbc.queryForObject(
                        "SELECT refund_status FROM payment_record WHERE payment_id = ?", String.class, p.payment()))
                .isEqualTo("REFUNDING");
        assertThat(count(
                        "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'PAID_AFTER_CANCEL' AND object_id = ?",
                        p.payment().toString()))
                .isOne();
        worker.refunds("refunder-71");
        assertThat(sim.payment(p.payment()).status()).isEqualTo(PaymentChannel.Status.REFUNDED);
        assertThat(jdbc.queryForObject(
                        "SELECT refund_status FROM payment_record WHERE payment_id = ?", String.class, p.payment()))
                .isEqualTo("REFUNDED");

        jdbc.update(
                "UPDATE payment_statement_checkpoint SET checked_to = ? WHERE provider = 'paysim'",
                java.sql.Timestamp.from(pass.from()));
        Pass again = settle();
        assertThat(again.count(Result.KNOWN)).as("the same window read again").isGreaterThanOrEqualTo(1);
        assertThat(again.count(Result.APPLIED)).isZero();
        assertThat(count("SELECT count(*) FROM payment_record WHERE order_id = ?", p.order()))
                .isOne();
        assertThat(ledger(p.order(), "SELL")).isZero();
        assertSettled(p);
    }

    @Test
    @DisplayName(
            "a paid order whose callback was lost: the statement makes it PAID once; the late callback finds it paid")
    void paidWithoutCallback() throws Exception {
        Paying p = paying(2, 72);
        assertThat(sim.pay(p.payment(), false)).isTrue();

        assertThat(settle().count(Result.APPLIED)).isOne();
        assertThat(orderStatus(p.order())).isEqualTo("PAID");
        assertThat(ledger(p.order(), "SELL")).isOne();
        assertThat(events(p.order(), "ORDER_PAID")).isOne();
        assertThat(deliverCallback(p.payment()).body()).contains("ALREADY_PAID");
        assertThat(settle().count(Result.APPLIED)).isZero();
        assertThat(events(p.order(), "ORDER_PAID")).isOne();
        assertSettled(p);
    }

    @Test
    @DisplayName("money for no order of this engine, and a refund it never made: open anomalies, nothing written, the "
            + "checkpoint moves on")
    void unmatchedEntries() throws Exception {
        UUID stranger = UUID.randomUUID(), strangersOrder = UUID.randomUUID();
        channel.create(stranger, strangersOrder, new BigDecimal("12.00"), "http://127.0.0.1:9/nowhere");
        assertThat(sim.pay(stranger, false)).isTrue();
        UUID refundedElsewhere = UUID.randomUUID();
        channel.create(refundedElsewhere, UUID.randomUUID(), new BigDecimal("3.00"), "http://127.0.0.1:9/nowhere");
        assertThat(sim.pay(refundedElsewhere, false)).isTrue();
        channel.refund(refundedElsewhere, UUID.randomUUID(), new BigDecimal("3.00"));
        double before = unmatchedCount();

        Pass pass = settle();
        assertThat(pass.count(Result.UNMATCHED)).isEqualTo(2);
        assertThat(pass.checkedTo()).isEqualTo(pass.to());
        assertThat(unmatchedCount() - before).isEqualTo(2);
        assertThat(jdbc.queryForObject(
                        "SELECT evidence->>'reason' FROM reconcile_anomaly WHERE anomaly_type = "
                                + "'STATEMENT_UNMATCHED' AND object_id = ? AND status = 'OPEN'",
                        String.class,
                        stranger.toString()))
                .isEqualTo("ORDER_NOT_FOUND");
        assertThat(jdbc.queryForObject(
                        "SELECT evidence->>'reason' FROM reconcile_anomaly WHERE anomaly_type = "
                                + "'STATEMENT_UNMATCHED' AND object_id = ? AND status = 'OPEN'",
                        String.class,
                        refundedElsewhere.toString()))
                .isEqualTo("REFUND_UNRECORDED");
        assertThat(count("SELECT count(*) FROM payment_record WHERE payment_id IN (?, ?)", stranger, refundedElsewhere))
                .isZero();
        assertThat(count("SELECT count(*) FROM orders WHERE order_id = ?", strangersOrder))
                .isZero();
    }

    @Test
    @DisplayName(
            "a statement the channel cannot serve keeps the checkpoint (unknown is not empty); once it answers, the "
                    + "payment is applied")
    void channelUnavailable() throws Exception {
        Paying p = paying(2, 73);
        assertThat(sim.pay(p.payment(), false)).isTrue();
        Instant checkpoint = payments.statementCheckpoint("paysim").orElseThrow();
        sim.knobs(PaySim.Knobs.NORMAL.failingQueries(100));
        assertThatThrownBy(this::settle).isInstanceOf(PaymentChannel.ChannelUnavailable.class);
        assertThat(payments.statementCheckpoint("paysim")).contains(checkpoint);
        assertThat(orderStatus(p.order())).isEqualTo("PAYING");

        sim.knobs(PaySim.Knobs.NORMAL);
        assertThat(settle().count(Result.APPLIED)).isOne();
        assertThat(orderStatus(p.order())).isEqualTo("PAID");
        assertSettled(p);
    }

    @Test
    @DisplayName(
            "an entry that cannot be applied holds the checkpoint at its payment time while the entries after it are "
                    + "applied; past the bound it is STATEMENT_STALLED; once it can be, it is applied")
    void poisonEntryBesideHealthyOne() throws Exception {
        long activityId = openSale(3, 3);
        UUID poison = placeOrder(activityId, 2, 74), poisonPayment = startPayment(74, poison);
        UUID healthy = placeOrder(activityId, 1, 75), healthyPayment = startPayment(75, healthy);
        awaitSettled(activityId, 2);
        // PostgreSQL says SKU 2 has no occupied unit to sell: the poison payment's PAID transaction must fail
        jdbc.update(
                "UPDATE sku_inventory SET occupied_stock = occupied_stock - 1, available_stock = available_stock + 1 "
                        + "WHERE activity_id = ? AND sku_id = 2",
                activityId);
        try {
            assertThat(sim.pay(poisonPayment, false)).isTrue();
            nextMillisecond();
            assertThat(sim.pay(healthyPayment, false)).isTrue();
            Instant poisonPaidAt = sim.payment(poisonPayment).paidAt();
            for (int attempt = 0; attempt < 2; attempt++) {
                Pass pass = settle();
                assertThat(pass.count(Result.FAILED)).isOne();
                assertThat(pass.checkedTo()).isEqualTo(poisonPaidAt);
            }
            assertThat(orderStatus(healthy)).isEqualTo("PAID");
            assertThat(orderStatus(poison)).isEqualTo("PAYING");
            assertThat(count("SELECT count(*) FROM payment_record WHERE payment_id = ?", poisonPayment))
                    .isZero();
            assertThat(count(
                            "SELECT count(*) FROM reconcile_anomaly WHERE anomaly_type = 'STATEMENT_STALLED' AND object_id = ? "
                                    + "AND status = 'OPEN'",
                            poisonPayment.toString()))
                    .isOne();
        } finally {
            jdbc.update(
                    "UPDATE sku_inventory SET occupied_stock = occupied_stock + 1, available_stock = available_stock - 1 "
                            + "WHERE activity_id = ? AND sku_id = 2",
                    activityId);
        }
        Pass healed = settle();
        assertThat(healed.count(Result.APPLIED)).isOne();
        assertThat(healed.count(Result.KNOWN))
                .as("the healthy payment, read again from the held checkpoint")
                .isOne();
        assertThat(healed.checkedTo()).isEqualTo(healed.to());
        assertThat(orderStatus(poison)).isEqualTo("PAID");
        awaitSettled(activityId, 2);
        assertInvariants(activityId, true);
    }

    @Test
    @DisplayName(
            "a payment the channel lists behind a window already read: the pass does not see it, the re-read of the "
                    + "lookback window applies it, and the checkpoint stays where it was")
    void paymentListedLate() throws Exception {
        Paying p = paying(2, 76);
        Instant readUpTo = settle().checkedTo();
        assertThat(sim.pay(p.payment(), false)).isTrue();
        sim.listLate(p.payment(), readUpTo.minusSeconds(60));

        assertThat(settle().count(Result.APPLIED)).as("behind the checkpoint").isZero();
        assertThat(orderStatus(p.order())).isEqualTo("PAYING");
        Instant checkpoint = payments.statementCheckpoint("paysim").orElseThrow();
        Pass reread = statement.reread(Instant.now());
        assertThat(reread.count(Result.APPLIED)).isGreaterThanOrEqualTo(1);
        assertThat(orderStatus(p.order())).isEqualTo("PAID");
        assertThat(payments.statementCheckpoint("paysim")).contains(checkpoint);
        assertThat(statement.reread(Instant.now()).count(Result.APPLIED))
                .as("read again: known")
                .isZero();
        assertSettled(p);
    }

    /** One pass up to now; a payment taken in the current millisecond is inside its window (to is exclusive). */
    private Pass settle() {
        nextMillisecond();
        return statement.runOnce(Instant.now());
    }

    /** Waits until the clock has left the current millisecond (the channel's times are in milliseconds). */
    private static void nextMillisecond() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Awaitility.await()
                .atMost(Duration.ofSeconds(1))
                .pollInterval(Duration.ofMillis(1))
                .until(() -> Instant.now().truncatedTo(ChronoUnit.MILLIS).isAfter(now));
    }

    private double unmatchedCount() {
        return meters.counter("payment.statement.entries", "result", "unmatched")
                .count();
    }
}
