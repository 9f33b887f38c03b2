package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.seckill.mq.OrderBacklog;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class OrderPaceRuleTest {

    private static final double NONE = Double.POSITIVE_INFINITY;
    /** When the consumers write their offsets, as a share of the interval, against the readings. */
    private static final double[] PHASES = {0, 0.3, 0.6, 0.9};

    /** Readings of one instance's broker, one second apart unless told, with this instance's own counts. */
    private final class Feed {
        final OrderPaceRule rule = new OrderPaceRule(Duration.ofSeconds(1));
        final long everyNanos;
        long sequence;
        long produced;
        long consumed;
        long admitted;
        long turnedAway;

        Feed() {
            this(Duration.ofSeconds(1));
        }

        Feed(Duration every) {
            this.everyNanos = every.toNanos();
        }

        /** One reading's interval: {@code admittedNow} taken here, {@code producedNow} reach the broker, {@code consumedNow} settled. */
        double next(long ageMs, long admittedNow, long turnedAwayNow, long producedNow, long consumedNow) {
            admitted += admittedNow;
            turnedAway += turnedAwayNow;
            produced += producedNow;
            consumed += consumedNow;
            return rule.update(reading(ageMs), admitted, turnedAway);
        }

        OrderBacklog.Reading reading(long ageMs) {
            sequence++;
            return ageMs < 0
                    ? new OrderBacklog.Reading(sequence, sequence * everyNanos, -1, -1, -1)
                    : new OrderBacklog.Reading(sequence, sequence * everyNanos, ageMs, produced, consumed);
        }
    }

    /** One instance's feed; JUnit makes a new one for every test. */
    private final Feed f = new Feed();

    /**
     * Two seconds of consumers settling 1,000/s while 2,000/s are produced, {@code mine} of them on this
     * instance: the pace starts with the second reading over the target, 2,000 messages waiting.
     */
    private double paced(Feed f, long mine) {
        f.next(0, 0, 0, 0, 0);
        f.next(1_200, mine, 0, 2_000, 1_000);
        return f.next(1_900, mine, 0, 2_000, 1_000);
    }

    @Test
    @DisplayName(
            "no pace while the oldest order message is within the target; one reading over it starts nothing, two in "
                    + "a row do")
    void twoReadingsOverStartThePace() {
        assertThat(f.next(0, 0, 0, 0, 0))
                .as("the first reading only opens a window")
                .isEqualTo(NONE);
        assertThat(f.next(300, 1_000, 0, 1_000, 1_000)).isEqualTo(NONE);
        assertThat(f.next(2_500, 1_000, 0, 1_000, 1_000))
                .as("one stale reading")
                .isEqualTo(NONE);
        assertThat(f.next(800, 1_000, 0, 1_000, 1_000)).isEqualTo(NONE);
        assertThat(f.next(1_500, 2_000, 0, 2_000, 1_000)).isEqualTo(NONE);
        assertThat(f.next(2_500, 2_000, 0, 2_000, 1_000))
                .as("the second in a row")
                .isLessThan(NONE);
    }

    @Test
    @DisplayName(
            "the fleet admits what the consumers settle, less the backlog's excess over what they settle in half the "
                    + "target spread over two seconds, or plus the room under it; within the target never less than they "
                    + "settle unless the backlog is over a whole target's worth; one instance alone takes all of it")
    void paceIsSettleRateLessTheExcess() {
        // aim 1,000/s x 1 s x 0.5 = 500; 2,000 waiting, excess 1,500 over 2 s: 1,000 - 750 = 250
        assertThat(paced(f, 2_000)).isCloseTo(250, within(0.01));
        // 500 admitted, consumers still settle 1,000: backlog 1,500, excess 1,000 -> 1,000 - 500
        assertThat(f.next(1_600, 500, 1_500, 500, 1_000)).isCloseTo(500, within(0.01));
        // backlog 500 = the aim: the pace is the settle rate
        assertThat(f.next(1_100, 500, 1_500, 0, 1_000)).isCloseTo(1_000, within(0.01));
        // backlog 800: over the aim, within a whole target's worth and the oldest within the target
        assertThat(f.next(900, 1_300, 1_000, 1_300, 1_000))
                .as("within the target, over the aim: never below the settle rate")
                .isCloseTo(1_000, within(0.01));
        assertThat(f.next(1_200, 1_000, 1_000, 1_000, 1_000))
                .as("the same backlog with the oldest over the target: 1,000 - 150")
                .isCloseTo(850, within(0.01));
        // under the aim, the room left is taken as well: backlog 300 -> 1,000 + 100
        assertThat(f.next(900, 1_000, 1_000, 500, 1_000))
                .as("within the target but turning buyers away")
                .isCloseTo(1_100, within(0.01));
        for (int i = 1; i < OrderPaceRule.SLACK_READINGS; i++) {
            assertThat(f.next(900, 1_000, 0, 1_000, 1_000))
                    .as("within the target, nobody turned away, reading %d", i)
                    .isLessThan(NONE);
        }
        assertThat(f.next(900, 1_000, 600, 1_000, 1_000))
                .as("turning buyers away again starts the count over")
                .isLessThan(NONE);
        for (int i = 1; i < OrderPaceRule.SLACK_READINGS; i++) {
            f.next(900, 1_000, 0, 1_000, 1_000);
        }
        assertThat(f.next(900, 1_000, 0, 1_000, 1_000))
                .as("slack in %d readings in a row", OrderPaceRule.SLACK_READINGS)
                .isEqualTo(NONE);
    }

    @Test
    @DisplayName("readings every 100 ms: four slack readings in a row do not end the pace, a second of them does")
    void slackEndsThePaceAfterASecondWhateverTheReadingsInterval() {
        Feed tenth = new Feed(Duration.ofMillis(100));
        tenth.next(0, 0, 0, 0, 0);
        tenth.next(1_200, 200, 0, 200, 100);
        assertThat(tenth.next(1_300, 200, 0, 200, 100))
                .as("two readings over the target")
                .isLessThan(NONE);
        long needed = OrderPaceRule.SLACK_NANOS / tenth.everyNanos;
        assertThat(needed).isGreaterThan(OrderPaceRule.SLACK_READINGS);
        for (int i = 1; i < needed; i++) {
            assertThat(tenth.next(500, 100, 0, 100, 100))
                    .as("slack reading %d, %d ms of slack", i, i * 100)
                    .isLessThan(NONE);
        }
        assertThat(tenth.next(500, 100, 0, 100, 100))
                .as("a second of slack readings")
                .isEqualTo(NONE);
    }

    @Test
    @DisplayName("consumers that settle nothing leave no room while the backlog is over the target; as they resume the "
            + "pace follows their rate once the excess is gone")
    void stalledConsumersAdmitNobody() {
        f.next(0, 0, 0, 0, 0);
        f.next(1_500, 1_000, 0, 1_000, 0);
        assertThat(f.next(2_500, 1_000, 0, 1_000, 0)).isZero();
        assertThat(f.next(3_500, 0, 800, 0, 0)).isZero();
        // 1,000 settled this second, none the one before (500/s over the window), 1,000 waiting: aim 250, excess
        // 750 -> 500 - 375
        assertThat(f.next(1_500, 0, 800, 0, 1_000)).isCloseTo(125, within(0.01));
        // 1,000 settled in each of the window's two seconds, 250 waiting: aim 500, room 250 -> 1,000 + 125
        assertThat(f.next(600, 250, 700, 250, 1_000))
                .as("within the target, still turning buyers away")
                .isCloseTo(1_125, within(0.01));
    }

    @Test
    @DisplayName("an instance takes its share: its own demand (admitted + turned away) over the fleet's produced + its "
            + "turned away")
    void shareOfTheFleet() {
        // fleet pace 250 as in paceIsSettleRateLessTheExcess; this instance made 500 of the 2,000 produced
        assertThat(paced(f, 500)).isCloseTo(62.5, within(0.01));
    }

    @Test
    @DisplayName("an unknown reading keeps the pace and the next known one only opens a new window; a reading seen "
            + "before changes nothing")
    void unknownAndRepeatedReadings() {
        double pace = paced(f, 2_000);
        assertThat(pace).isCloseTo(250, within(0.01));
        assertThat(f.next(-1, 500, 9_000, 500, 0)).as("unknown").isEqualTo(pace);
        assertThat(f.next(500, 500, 0, 500, 3_000))
                .as("a window across the gap is not judged")
                .isEqualTo(pace);
        OrderBacklog.Reading again = f.reading(100);
        double first = f.rule.update(again, f.admitted, f.turnedAway);
        assertThat(f.rule.update(again, f.admitted, f.turnedAway + 10_000)).isEqualTo(first);
        assertThatThrownBy(() -> new OrderPaceRule(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName(
            "two instances asking 1,500 and 500 a second of consumers that settle 1,000: the fleet settles into about "
                    + "1,000 admitted a second, split by demand, and the oldest order waits about the target, not more and more")
    void twoInstancesConverge() {
        Sale sale = new Sale(1_000, 0.1, 0.2, t -> 1_500, t -> 500);
        sale.run(120);
        double fleet = (sale.admittedBetween(0, 60, 120) + sale.admittedBetween(1, 60, 120)) / 60;
        assertThat(fleet).as("admitted a second over the last minute").isBetween(850.0, 1_100.0);
        assertThat(sale.maxWait(60, 120))
                .as("the longest wait of an order admitted in the last minute, s")
                .isLessThanOrEqualTo(1.5);
        assertThat(sale.admittedBetween(1, 60, 120) / 60)
                .as("the smaller instance is not starved")
                .isGreaterThan(150);
        assertThat(sale.admittedBetween(0, 60, 120))
                .as("the busier instance admits more")
                .isGreaterThan(1.5 * sale.admittedBetween(1, 60, 120));
    }

    @Test
    @DisplayName(
            "a burst from idle, 2,000 a second asked of consumers that settle 1,000: the backlog's growth starts the "
                    + "pace before the oldest message is over the target, and no order of the burst's first seconds waits "
                    + "longer than the target")
    void burstStartsThePaceEarly() {
        for (double phase : PHASES) {
            Sale sale = new Sale(1_000, 0.3, phase, t -> t < 5 ? 0 : 2_000);
            sale.run(35);
            assertThat(sale.pacedFrom)
                    .as("pace started, s (offsets written %.0f%% into their interval)", phase * 100)
                    .isBetween(5.0, 6.0);
            assertThat(sale.maxWait(5, 10))
                    .as("longest wait of the burst's first 5 s, s")
                    .isLessThanOrEqualTo(1.0);
            sale.holdsOnceSettled(
                    15, 35, 1.6, String.format("offsets written %.0f%% into their interval", phase * 100));
        }
    }

    @Test
    @DisplayName(
            "a burst from idle a third over what consumers of 1,000 a second settle: the backlog grows slowly, and the "
                    + "pace starts before it holds a whole target's worth - no order waits longer than the target")
    void aSlowlyGrowingBacklogStartsThePaceBeforeTheTarget() {
        for (double phase : PHASES) {
            Sale sale = new Sale(1_000, 0.2, phase, t -> t < 5 ? 0 : 1_300);
            sale.run(35);
            String what = String.format("offsets written %.0f%% into their interval", phase * 100);
            assertThat(sale.maxWait(5, 15))
                    .as("longest wait of the burst's first 10 s, s (%s)", what)
                    .isLessThanOrEqualTo(1.0);
            sale.holdsOnceSettled(15, 35, 1.0, what);
        }
    }

    @Test
    @DisplayName(
            "consumers that keep up but take 600 ms of their own for a message (and the broker sees it late by up to "
                    + "the offsets' interval): nobody is turned away")
    void slowButSufficientConsumersAreNotPaced() {
        for (double phase : PHASES) {
            Sale sale = new Sale(1_000, 0.6, phase, t -> 900);
            sale.run(60);
            assertThat(sale.turnedAway[0])
                    .as("turned away (offsets written %.0f%% into their interval)", phase * 100)
                    .isZero();
            assertThat(sale.pacedFrom).isNaN();
        }
    }

    @Test
    @DisplayName(
            "consumers whose rate swings with their batches, offsets written unevenly, buyers asking a little more than "
                    + "the consumers settle: a generous reading does not end the pace (it started again at once, the entry at full "
                    + "speed in between), and it ends once the buyers ask less")
    void aSwingingRateDoesNotLetThePaceGo() {
        for (double phase : PHASES) {
            for (double asked : new double[] {1_200, 1_500, 2_000}) {
                Sale sale = new Sale(1_000, 0.3, phase, t -> t < 5 ? 0 : t < 35 ? asked : 500);
                sale.offsetGaps = new double[] {0.3, 1.7, 1.0, 0.5, 1.5};
                sale.speeds = new double[] {0.2, 1.8, 0.4, 1.9, 1.0, 0.1, 1.6, 0.3, 2.0, 0.7};
                sale.run(45);
                String what =
                        String.format("%.0f/s asked, offsets written %.0f%% into their interval", asked, phase * 100);
                assertThat(sale.releasedAt)
                        .as("the pace let go at, s (%s)", what)
                        .hasSize(1);
                assertThat(sale.releasedAt.get(0)).as(what).isBetween(35.0, 38.0);
                sale.holdsOnceSettled(15, 35, 1.2, what);
            }
        }
    }

    @Test
    @DisplayName("consumers that stall for up to 400 ms between bursts of twice their rate, buyers asking twice what "
            + "they settle: once the pace has settled no order waits longer than the target, and the consumers "
            + "are kept fed")
    void stallingConsumersKeepTheWaitWithinTheTarget() {
        for (double phase : PHASES) {
            Sale sale = new Sale(1_000, 0.2, phase, t -> t < 5 ? 0 : 2_000);
            sale.speeds = new double[] {0, 0, 0, 0, 2.2, 2.2, 1.6, 0, 0, 1.6, 2.4, 0.5, 0, 1.8, 1.7};
            sale.offsetGaps = new double[] {0.3, 1.7, 1.0, 0.5, 1.5};
            sale.run(45);
            String what = String.format("offsets written %.0f%% into their interval", phase * 100);
            sale.holdsOnceSettled(15, 45, 1.0, what);
        }
    }

    /**
     * A sale stepped 10 ms at a time: API instances, each asked {@code demand} buyers a second and admitting
     * them through its own rule's pace (a bucket of a tenth of a second, as {@link OrderPace}), the broker,
     * and consumers that settle up to {@code settles} messages a second, oldest first, each at least
     * {@code ownTime} seconds after it was admitted (send, pull, commit). The consumers write their offsets
     * every {@link OrderBacklog#OFFSETS_WRITTEN_MS}, {@code offsetPhase} (a share of that interval) later than
     * the broker is read, every {@link OrderBacklog#READ_EVERY_MS}; the age is the oldest message's past the
     * written offset.
     */
    private static final class Sale {
        static final double STEP = 0.01;
        final double settles;
        final double ownTime;
        final double offsetPhase;
        final DoubleUnaryOperator[] demand;
        final OrderPaceRule[] rules;
        final double[] pace;
        final double[] tokens;
        final double[] admitted;
        final double[] turnedAway;
        /** Per instance, what it admitted in each whole second. */
        final double[][] admittedBySecond;
        /** The longest wait of the orders admitted in each whole second. */
        final double[] maxWaitBySecond = new double[600];
        /** Messages the consumers have not settled, oldest first: admitted at, how many. */
        final ArrayDeque<double[]> unsettled = new ArrayDeque<>();
        /** Every step's messages as the broker keeps them: stored at, produced so far. */
        final List<double[]> stored = new ArrayList<>();

        int oldestStored;
        double produced;
        double settled;
        double written;
        double pacedFrom = Double.NaN;
        /** When a pace, once started, was let go, s. */
        final List<Double> releasedAt = new ArrayList<>();
        /** The gaps between offset writes, as shares of {@link OrderBacklog#OFFSETS_WRITTEN_MS}, taken in turn. */
        double[] offsetGaps = {1};

        Sale(double settles, double ownTime, double offsetPhase, DoubleUnaryOperator... demand) {
            this.settles = settles;
            this.ownTime = ownTime;
            this.offsetPhase = offsetPhase;
            this.demand = demand;
            int n = demand.length;
            rules = new OrderPaceRule[n];
            for (int k = 0; k < n; k++) {
                rules[k] = new OrderPaceRule(Duration.ofSeconds(1));
            }
            pace = new double[n];
            Arrays.fill(pace, NONE);
            tokens = new double[n];
            admitted = new double[n];
            turnedAway = new double[n];
            admittedBySecond = new double[n][600];
        }

        void run(double seconds) {
            long steps = Math.round(seconds / STEP);
            long perRead = Math.round(OrderBacklog.READ_EVERY_MS / 1000.0 / STEP);
            long perWrite = Math.round(OrderBacklog.OFFSETS_WRITTEN_MS / 1000.0 / STEP);
            long nextWrite = Math.round(offsetPhase * perWrite) % perWrite;
            int gap = 0;
            for (long i = 1; i <= steps; i++) {
                double now = i * STEP;
                admit(now);
                settle(now);
                if (i >= nextWrite) {
                    written = settled;
                    nextWrite = i + Math.max(1, Math.round(offsetGaps[gap++ % offsetGaps.length] * perWrite));
                }
                if (i % perRead == 0) {
                    read(i / perRead, now);
                }
            }
        }

        private void admit(double now) {
            double in = 0;
            for (int k = 0; k < demand.length; k++) {
                double asked = demand[k].applyAsDouble(now) * STEP;
                double taken = asked;
                if (!Double.isInfinite(pace[k])) {
                    tokens[k] = Math.min(pace[k] * 0.1, tokens[k] + pace[k] * STEP);
                    taken = Math.min(asked, tokens[k]);
                    tokens[k] -= taken;
                }
                admitted[k] += taken;
                turnedAway[k] += asked - taken;
                admittedBySecond[k][(int) now] += taken;
                in += taken;
            }
            if (in > 0) {
                produced += in;
                unsettled.addLast(new double[] {now, in});
                stored.add(new double[] {now, produced});
            }
        }

        /** The consumers' speed by 100 ms, as shares of {@code settles}, taken in turn (batches, commits, other work). */
        double[] speeds = {1};

        private void settle(double now) {
            double room = settles * speeds[(int) (now * 10) % speeds.length] * STEP;
            while (room > 1e-9 && !unsettled.isEmpty() && now - unsettled.peekFirst()[0] >= ownTime - 1e-9) {
                double[] oldest = unsettled.peekFirst();
                double take = Math.min(room, oldest[1]);
                oldest[1] -= take;
                room -= take;
                settled += take;
                int second = (int) oldest[0];
                maxWaitBySecond[second] = Math.max(maxWaitBySecond[second], now - oldest[0]);
                if (oldest[1] <= 1e-9) {
                    unsettled.pollFirst();
                }
            }
        }

        private void read(long sequence, double now) {
            while (oldestStored < stored.size() && stored.get(oldestStored)[1] <= written + 1e-6) {
                oldestStored++;
            }
            double ageSeconds = oldestStored < stored.size() ? now - stored.get(oldestStored)[0] : 0;
            OrderBacklog.Reading r = new OrderBacklog.Reading(
                    sequence,
                    Math.round(now * 1e9),
                    Math.round(ageSeconds * 1000),
                    Math.round(produced),
                    Math.round(written));
            for (int k = 0; k < rules.length; k++) {
                boolean was = !Double.isInfinite(pace[k]);
                pace[k] = rules[k].update(r, Math.round(admitted[k]), Math.round(turnedAway[k]));
                if (was && Double.isInfinite(pace[k])) {
                    releasedAt.add(now);
                }
                if (!Double.isInfinite(pace[k]) && Double.isNaN(pacedFrom)) {
                    pacedFrom = now;
                }
            }
        }

        double admittedBetween(int instance, int from, int to) {
            double sum = 0;
            for (int s = from; s < to; s++) {
                sum += admittedBySecond[instance][s];
            }
            return sum;
        }

        /**
         * From second {@code from} to {@code to}: no order waits longer than {@code longest} seconds, and the one
         * instance admits what consumers of 1,000 a second settle, give or take a tenth.
         */
        void holdsOnceSettled(int from, int to, double longest, String what) {
            assertThat(maxWait(from, to))
                    .as("longest wait once settled, s (%s)", what)
                    .isLessThanOrEqualTo(longest);
            assertThat(admittedBetween(0, from, to) / (to - from))
                    .as("admitted a second (%s)", what)
                    .isBetween(900.0, 1_100.0);
        }

        double maxWait(int from, int to) {
            double max = 0;
            for (int s = from; s < to; s++) {
                max = Math.max(max, maxWaitBySecond[s]);
            }
            return max;
        }
    }
}
