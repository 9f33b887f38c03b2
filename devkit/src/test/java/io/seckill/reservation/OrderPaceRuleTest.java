package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayDeque;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.seckill.mq.OrderBacklog;

class OrderPaceRuleTest {

    private static final double NONE = Double.POSITIVE_INFINITY;

    /** Readings one second apart of one instance's broker, with this instance's own counts. */
    private final class Feed {
        final OrderPaceRule rule = new OrderPaceRule(Duration.ofSeconds(1));
        long sequence;
        long produced;
        long consumed;
        long admitted;
        long turnedAway;

        /** One second: {@code admittedNow} taken here, {@code producedNow} reach the broker, {@code consumedNow} settled. */
        double second(long ageMs, long admittedNow, long turnedAwayNow, long producedNow, long consumedNow) {
            admitted += admittedNow;
            turnedAway += turnedAwayNow;
            produced += producedNow;
            consumed += consumedNow;
            return rule.update(reading(ageMs), admitted, turnedAway);
        }

        OrderBacklog.Reading reading(long ageMs) {
            sequence++;
            return ageMs < 0 ? new OrderBacklog.Reading(sequence, sequence * 1_000_000_000L, -1, -1, -1)
                    : new OrderBacklog.Reading(sequence, sequence * 1_000_000_000L, ageMs, produced, consumed);
        }
    }

    /** One instance's feed; JUnit makes a new one for every test. */
    private final Feed f = new Feed();

    /**
     * Two seconds of consumers settling 1,000/s while 2,000/s are produced, {@code mine} of them on this
     * instance: the pace starts with the second reading over the target, 2,000 messages waiting.
     */
    private double paced(Feed f, long mine) {
        f.second(0, 0, 0, 0, 0);
        f.second(1_200, mine, 0, 2_000, 1_000);
        return f.second(1_900, mine, 0, 2_000, 1_000);
    }

    @Test
    @DisplayName("no pace while the oldest order message is within the target; one reading over it starts nothing, two in "
            + "a row do")
    void twoReadingsOverStartThePace() {
        assertThat(f.second(0, 0, 0, 0, 0)).as("the first reading only opens a window").isEqualTo(NONE);
        assertThat(f.second(300, 1_000, 0, 1_000, 1_000)).isEqualTo(NONE);
        assertThat(f.second(2_500, 1_000, 0, 1_000, 1_000)).as("one stale reading").isEqualTo(NONE);
        assertThat(f.second(800, 1_000, 0, 1_000, 1_000)).isEqualTo(NONE);
        assertThat(f.second(1_500, 2_000, 0, 2_000, 1_000)).isEqualTo(NONE);
        assertThat(f.second(2_500, 2_000, 0, 2_000, 1_000)).as("the second in a row").isLessThan(NONE);
    }

    @Test
    @DisplayName("the fleet admits what the consumers settle, less the backlog's excess over target x settle rate spread "
            + "over two seconds; one instance alone takes all of it")
    void paceIsSettleRateLessTheExcess() {
        // steady backlog 1,000/s x 1 s = 1,000; 2,000 waiting, excess 1,000 over 2 s: 1,000 - 500 = 500
        assertThat(paced(f, 2_000)).isCloseTo(500, within(0.01));
        // the next second it admits 500, consumers still settle 1,000: backlog 1,500, excess 500 -> 750
        assertThat(f.second(1_600, 500, 1_500, 500, 1_000)).isCloseTo(750, within(0.01));
        // backlog 1,000 = steady: the pace is the settle rate
        assertThat(f.second(1_100, 750, 1_250, 500, 1_000)).isCloseTo(1_000, within(0.01));
        // under the target's backlog, the room left is taken as well: backlog 500 -> 1,000 + 250
        assertThat(f.second(900, 1_000, 1_000, 500, 1_000)).as("within the target but turning buyers away")
                .isCloseTo(1_250, within(0.01));
        assertThat(f.second(900, 1_000, 0, 1_000, 1_000)).as("within the target, nobody turned away").isEqualTo(NONE);
    }

    @Test
    @DisplayName("consumers that settle nothing leave no room while the backlog is over the target; as they resume the "
            + "pace follows their rate once the excess is gone")
    void stalledConsumersAdmitNobody() {
        f.second(0, 0, 0, 0, 0);
        f.second(1_500, 1_000, 0, 1_000, 0);
        assertThat(f.second(2_500, 1_000, 0, 1_000, 0)).isZero();
        assertThat(f.second(3_500, 0, 800, 0, 0)).isZero();
        // 1,000 settled this second (smoothed 500/s), 1,000 waiting: steady 500, excess 500 -> 500 - 250
        assertThat(f.second(1_500, 0, 800, 0, 1_000)).isCloseTo(250, within(0.01));
        // 1,000 settled (smoothed 750/s), 250 waiting: steady 750, room 500 -> 750 + 250
        assertThat(f.second(600, 250, 700, 250, 1_000)).as("within the target, still turning buyers away")
                .isCloseTo(1_000, within(0.01));
    }

    @Test
    @DisplayName("an instance takes its share: its own demand (admitted + turned away) over the fleet's produced + its "
            + "turned away")
    void shareOfTheFleet() {
        // fleet pace 500 as in paceIsSettleRateLessTheExcess; this instance made 500 of the 2,000 produced
        assertThat(paced(f, 500)).isCloseTo(125, within(0.01));
    }

    @Test
    @DisplayName("an unknown reading keeps the pace and the next known one only opens a new window; a reading seen "
            + "before changes nothing")
    void unknownAndRepeatedReadings() {
        double pace = paced(f, 2_000);
        assertThat(pace).isCloseTo(500, within(0.01));
        assertThat(f.second(-1, 500, 9_000, 500, 0)).as("unknown").isEqualTo(pace);
        assertThat(f.second(500, 500, 0, 500, 3_000)).as("a window across the gap is not judged").isEqualTo(pace);
        OrderBacklog.Reading again = f.reading(100);
        double first = f.rule.update(again, f.admitted, f.turnedAway);
        assertThat(f.rule.update(again, f.admitted, f.turnedAway + 10_000)).isEqualTo(first);
        assertThatThrownBy(() -> new OrderPaceRule(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("two instances asking 1,500 and 500 a second of consumers that settle 1,000: the fleet settles into about "
            + "1,000 admitted a second, split by demand, and the oldest order waits about the target, not more and more")
    void twoInstancesConverge() {
        OrderPaceRule[] rules = {new OrderPaceRule(Duration.ofSeconds(1)), new OrderPaceRule(Duration.ofSeconds(1))};
        double[] demand = {1_500, 500};
        double[] pace = {NONE, NONE};
        double[] admitted = new double[2];
        double[] turnedAway = new double[2];
        double[] admittedLate = new double[2];
        double settles = 1_000;
        double step = 0.5;
        // the broker: messages produced per step, oldest first; what the consumers settle comes off the front
        ArrayDeque<double[]> waiting = new ArrayDeque<>();
        double produced = 0;
        double consumed = 0;
        double maxAgeLate = 0;
        for (int i = 1; i <= 240; i++) {
            double now = i * step;
            double sent = 0;
            for (int k = 0; k < 2; k++) {
                double in = Math.min(demand[k], pace[k]) * step;
                admitted[k] += in;
                turnedAway[k] += demand[k] * step - in;
                sent += in;
                if (now > 60) {
                    admittedLate[k] += in;
                }
            }
            produced += sent;
            waiting.addLast(new double[] {now, sent});
            double settle = settles * step;
            while (settle > 0 && !waiting.isEmpty()) {
                double[] oldest = waiting.peekFirst();
                double take = Math.min(settle, oldest[1]);
                oldest[1] -= take;
                settle -= take;
                consumed += take;
                if (oldest[1] <= 1e-9) {
                    waiting.pollFirst();
                }
            }
            double ageMs = waiting.isEmpty() ? 0 : (now - waiting.peekFirst()[0]) * 1000;
            if (now > 60) {
                maxAgeLate = Math.max(maxAgeLate, ageMs);
            }
            OrderBacklog.Reading r = new OrderBacklog.Reading(i, (long) (now * 1e9), (long) ageMs, (long) produced,
                    (long) consumed);
            for (int k = 0; k < 2; k++) {
                pace[k] = rules[k].update(r, (long) admitted[k], (long) turnedAway[k]);
            }
        }
        double lateSeconds = 60;
        double fleet = (admittedLate[0] + admittedLate[1]) / lateSeconds;
        assertThat(fleet).as("admitted a second over the last minute").isBetween(850.0, 1_100.0);
        assertThat(maxAgeLate).as("the oldest order's wait over the last minute, ms").isLessThanOrEqualTo(1_500);
        assertThat(admittedLate[1] / lateSeconds).as("the smaller instance is not starved").isGreaterThan(150);
        assertThat(admittedLate[0]).as("the busier instance admits more").isGreaterThan(1.5 * admittedLate[1]);
    }
}
