package io.seckill.payment;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.payment.channel.PaymentChannel;
import io.seckill.payment.channel.PaymentChannel.Callback;
import io.seckill.worker.PollingWorker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The channel's statement against the payment records (docs/RECONCILIATION.md, "The channel's statement").
 * A callback can be lost for good - a real channel stops notifying after a while - and after a local
 * cancel nothing else asks the channel about that payment again, so money taken after a close would
 * stay with the seller unseen. The statement lists every payment whose money was taken; each pass of
 * the {@code payment} role reads it from the checkpoint up to {@code seckill.payment.statement.delay} before now:
 * <ul>
 * <li>an entry with a payment record is known: nothing to do;</li>
 * <li>an unrecorded SUCCESS entry is applied as its callback would have been
 * ({@link PaymentService#applyPaid}, source {@code statement}): its order becomes PAID, or - when it
 * was cancelled - the payment is recorded and refunded;</li>
 * <li>an entry that matches no order of this engine, or a refund this side never recorded, is an open
 * anomaly {@code STATEMENT_UNMATCHED} for a person;</li>
 * <li>an entry whose apply fails (PostgreSQL away, an order that cannot take the payment) holds the
 * checkpoint at its payment time - the entries after it are still applied - and is retried each
 * pass; past the stall bound it is an anomaly {@code STATEMENT_STALLED}.</li>
 * </ul>
 * Applying is idempotent by payment id, so instances reading the same window at once are harmless;
 * the checkpoint moves only from where its pass started.
 */
@Component
public class PaymentStatementWorker extends PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(PaymentStatementWorker.class);

    static final String WORKER = "payment-statement";

    private final PaymentChannel channel;
    private final PaymentRepository payments;
    private final StatementMatcher matcher;
    private final SeckillProperties.Payment cfg;
    private final Clock clock;
    private final AtomicReference<Instant> checkedTo = new AtomicReference<>();
    /** When this instance last read the lookback window again; its worker thread only. */
    private Instant lastReread;

    PaymentStatementWorker(
            PaymentChannel channel,
            PaymentRepository payments,
            StatementMatcher matcher,
            SeckillProperties props,
            MeterRegistry meters,
            Clock clock) {
        super("payment", "payment.statement", props.payment().statement().interval(), props, meters);
        this.clock = clock;
        this.channel = channel;
        this.payments = payments;
        this.matcher = matcher;
        this.cfg = props.payment();
        for (Result r : Result.values()) {
            meters.counter("payment.statement.entries", "result", r.label);
        }
        Gauge.builder("payment.statement.lag.seconds", checkedTo, at -> secondsBehind(at, clock))
                .description("how far behind now the channel's statement is reconciled (0 before the first pass)")
                .register(meters);
    }

    /** What became of one statement entry. */
    public enum Result {
        KNOWN("known"),
        APPLIED("applied"),
        UNMATCHED("unmatched"),
        FAILED("failed");

        private final String label;

        Result(String label) {
            this.label = label;
        }
    }

    /** One pass: the window read, and what became of its entries. */
    public record Pass(Instant from, Instant to, Instant checkedTo, Map<Result, Integer> entries) {
        public int count(Result r) {
            return entries.getOrDefault(r, 0);
        }
    }

    @Override
    protected String threadName() {
        return WORKER;
    }

    /** The statement is read once per interval: a pass reads its whole window. */
    @Override
    protected int runPass() {
        Instant now = clock.instant();
        runOnce(now);
        Instant last = lastReread;
        if (last == null || !now.isBefore(last.plus(cfg.statement().rereadEvery()))) {
            reread(now);
            lastReread = now;
        }
        return 0;
    }

    /** Reconciles the statement up to {@code seckill.payment.statement.delay} before {@code now}. */
    public Pass runOnce(Instant now) {
        String provider = channel.provider();
        Optional<Instant> checkpoint = payments.statementCheckpoint(provider);
        checkpoint.ifPresent(checkedTo::set);
        Instant from = checkpoint.orElse(now.minus(cfg.statement().lookback()).truncatedTo(ChronoUnit.MILLIS));
        Instant to = now.minus(cfg.statement().delay()).truncatedTo(ChronoUnit.MILLIS);
        if (!to.isAfter(from)) {
            return new Pass(from, to, from, Map.of());
        }
        Window read = read(provider, from, to);
        Instant reached = read.held() == null ? to : read.held();
        if (reached.isAfter(from) && payments.advanceStatement(provider, checkpoint.orElse(null), reached)) {
            checkedTo.set(reached);
        }
        if (read.counts().keySet().stream().anyMatch(r -> r != Result.KNOWN)) {
            log.info("payment.statement_pass from={} to={} checked_to={} entries={}", from, to, reached, read.counts());
        }
        return new Pass(from, to, reached, read.counts());
    }

    /**
     * Reads the whole lookback window again, up to the checkpoint, without moving it: a channel may list
     * a payment later than {@code seckill.payment.statement.delay} after it took the money, behind a
     * window already read. Runs every {@code seckill.payment.statement.reread-every} (and once after
     * start); what it finds is settled as on any pass.
     */
    public Pass reread(Instant now) {
        String provider = channel.provider();
        Instant from = now.minus(cfg.statement().lookback()).truncatedTo(ChronoUnit.MILLIS);
        Instant to = payments.statementCheckpoint(provider).orElse(from);
        if (!to.isAfter(from)) {
            return new Pass(from, to, to, Map.of());
        }
        Window read = read(provider, from, to);
        if (read.counts().keySet().stream().anyMatch(r -> r != Result.KNOWN)) {
            log.warn(
                    "payment.statement_reread from={} to={} entries={} (listed by the channel after their window was read)",
                    from,
                    to,
                    read.counts());
        }
        return new Pass(from, to, to, read.counts());
    }

    /** What a read of one window found: counts by result, and the payment time of the first entry that failed. */
    private record Window(Map<Result, Integer> counts, Instant held) {}

    private Window read(String provider, Instant from, Instant to) {
        Map<Result, Integer> counts = new LinkedHashMap<>();
        Instant held = null;
        String after = null;
        do {
            PaymentChannel.Statement page = channel.statement(from, to, after, cfg.batch());
            Set<UUID> unrecorded = payments.unrecorded(
                    page.entries().stream().map(Callback::paymentId).toList());
            for (Callback entry : page.entries()) {
                Result r = unrecorded.contains(entry.paymentId()) ? matcher.settle(provider, entry) : Result.KNOWN;
                meters.counter("payment.statement.entries", "result", r.label).increment();
                counts.merge(r, 1, Integer::sum);
                if (r == Result.FAILED && held == null) {
                    held = entry.paidAt();
                }
            }
            after = page.next();
        } while (after != null);
        return new Window(counts, held);
    }

    private static double secondsBehind(AtomicReference<Instant> checkedTo, Clock clock) {
        Instant at = checkedTo.get();
        return at == null
                ? 0
                : Math.max(0, Duration.between(at, clock.instant()).toMillis() / 1000.0);
    }
}
