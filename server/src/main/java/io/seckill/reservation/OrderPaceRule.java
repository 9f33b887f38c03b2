package io.seckill.reservation;

import io.seckill.mq.OrderBacklog;
import java.time.Duration;
import java.util.ArrayDeque;

/**
 * How many new reservations a second this instance may admit so that an admitted buyer's order
 * message waits at most about {@code target} for the order consumers (DESIGN.md §11.3 point 1, "slow
 * new reservations at the entry"). Judged once per backlog reading:
 * <ul>
 * <li>There is no pace until two readings in a row find the oldest unconsumed order message older
 * than the target (one stale offset starts nothing), or two find the backlog heading past it: grown
 * since the reading before to more than the consumers settle in {@link #HEADING} of the target. At the
 * start of a burst the oldest message is only as old as the burst, so the backlog's size starts the
 * pace before the age would; and a backlog that grows slowly is paced before its newest orders wait
 * the whole target, not once they do. There is none again once {@link #SLACK_READINGS} readings in a
 * row, over at least {@link #SLACK_NANOS}, find the oldest message within the target, the backlog not
 * heading past it, and nobody turned away: one generous reading would otherwise end the pace only for
 * the next ones to start it again, the entry admitting at full speed in between.
 * <li>Otherwise the whole fleet may admit what the consumers settle a second, plus the room left under
 * the aimed backlog or minus the excess over it, each spread over {@link #CLOSE_SECONDS}. The aim is
 * what the consumers settle in {@link #AIM} of the target: the consumers' pace swings with their
 * batches, commits and whatever else shares their cores, and a backlog held at a whole target's worth
 * had a quarter of its orders wait longer than the target; held at half, the swings' tail stays
 * within it. While the oldest message is within the target and the backlog within what the consumers
 * settle in the whole target, the pace is never below what they settle: consumers whose own time
 * (pull, batch, commit, offsets written late) is more than the aim leave a backlog over it however
 * fast they are fed, and trimming them below their rate would feed them less each reading, down to
 * nothing. Consumers that settle nothing leave no room at all while the backlog is over the aim.
 * <li>What the consumers settle is read over the last {@link #RATE_WINDOW_NANOS} of readings that began
 * with messages waiting (consumers with nothing to do show no rate): one reading's interval holds one
 * offset write or none, and none while a batch commits, and a pace following each reading swung from
 * nothing to twice the consumers' rate and back.
 * <li>This instance takes its share of that: its own demand (admitted plus turned away) over the
 * fleet's (messages produced plus this instance's turned away). An instance cannot see the others'
 * refusals, so shares may sum past one; the backlog they overfill is over the aim at the next
 * reading and the fleet's pace shrinks to take it back.
 * </ul>
 * A reading whose backlog is unknown keeps the pace as it is; a reading seen before changes nothing.
 */
final class OrderPaceRule {

    /** A backlog away from the target is brought back over this many seconds. */
    static final double CLOSE_SECONDS = 2.0;
    /** Readings in a row with the pace slack (nobody turned away, the backlog within the target) that end it. */
    static final int SLACK_READINGS = 4;
    /** The slack readings that end a pace span at least this long, however often the backlog is read. */
    static final long SLACK_NANOS = 1_000_000_000L;
    /** A growing backlog is heading past the target once over what the consumers settle in this share of it. */
    static final double HEADING = 0.75;
    /** The backlog a pace aims at: what the consumers settle in this share of the target. */
    static final double AIM = 0.5;
    /** What the consumers settle is read over this much of the latest readings that began with messages waiting. */
    static final long RATE_WINDOW_NANOS = 2_000_000_000L;

    private final long targetMs;
    private long seen;
    private OrderBacklog.Reading previous;
    private long previousAdmitted;
    private long previousTurnedAway;
    /** The latest intervals that began with messages waiting, oldest first: {nanos long, messages settled}. */
    private final ArrayDeque<long[]> settling = new ArrayDeque<>();

    private double limit = Double.POSITIVE_INFINITY;
    private int overInARow;
    private int headingInARow;
    private int slackInARow;
    /** When the interval before the first of the slack readings in a row began. */
    private long slackSince;

    OrderPaceRule(Duration target) {
        if (target.isNegative() || target.isZero()) {
            throw new IllegalArgumentException("an order wait target must be positive: " + target);
        }
        this.targetMs = target.toMillis();
    }

    /**
     * Takes reading {@code r} into account (once), with this instance's counts so far of reservations
     * {@code admitted} and of buyers {@code turnedAway} by the pace; returns the pace, reservations a
     * second on this instance ({@link Double#POSITIVE_INFINITY} for none).
     */
    synchronized double update(OrderBacklog.Reading r, long admitted, long turnedAway) {
        if (r == null || r.sequence() <= seen) {
            return limit;
        }
        seen = r.sequence();
        if (!r.known()) {
            // the next known reading starts a new window: rates over a gap would mix two states
            previous = null;
            return limit;
        }
        OrderBacklog.Reading p = previous;
        long admittedBefore = previousAdmitted;
        long turnedAwayBefore = previousTurnedAway;
        previous = r;
        previousAdmitted = admitted;
        previousTurnedAway = turnedAway;
        if (p == null || r.atNanos() <= p.atNanos()) {
            return limit;
        }
        double seconds = (r.atNanos() - p.atNanos()) / 1e9;
        double backlogBefore = Math.max(0, p.produced() - p.consumed());
        double backlog = Math.max(0, r.produced() - r.consumed());
        if (backlogBefore > 0) {
            settling.addLast(new long[] {r.atNanos() - p.atNanos(), Math.max(0, r.consumed() - p.consumed())});
        }
        double away = Math.max(0, turnedAway - turnedAwayBefore) / seconds;
        double rate = settledPerSecond();
        double full = rate * targetMs / 1000.0;
        boolean over = r.ageMs() > targetMs;
        overInARow = over ? overInARow + 1 : 0;
        boolean heading = rate > 0 && backlog > backlogBefore && backlog > full * HEADING;
        headingInARow = heading ? headingInARow + 1 : 0;
        slackInARow = !over && !heading && away == 0 ? slackInARow + 1 : 0;
        if (slackInARow == 1) {
            slackSince = p.atNanos();
        }
        boolean slack = slackInARow >= SLACK_READINGS && r.atNanos() - slackSince >= SLACK_NANOS;
        if (Double.isInfinite(limit) ? overInARow < 2 && headingInARow < 2 : slack) {
            limit = Double.POSITIVE_INFINITY;
            return limit;
        }
        double produced = Math.max(0, r.produced() - p.produced()) / seconds;
        double mine = Math.max(0, admitted - admittedBefore) / seconds;
        double fleet = Math.max(0, rate + (full * AIM - backlog) / CLOSE_SECONDS);
        if (!over && backlog <= full) {
            fleet = Math.max(fleet, rate);
        }
        double demand = mine + away;
        double share = produced + away > 0 ? Math.min(1, demand / (produced + away)) : 1;
        limit = fleet * share;
        return limit;
    }

    /**
     * Messages a second the consumers settled over the intervals of the last {@link #RATE_WINDOW_NANOS} that
     * began with messages waiting (the latest one whatever its length); 0 before any.
     */
    private double settledPerSecond() {
        long nanos = 0;
        long messages = 0;
        var newestFirst = settling.descendingIterator();
        while (newestFirst.hasNext()) {
            long[] interval = newestFirst.next();
            if (nanos >= RATE_WINDOW_NANOS) {
                newestFirst.remove();
                continue;
            }
            nanos += interval[0];
            messages += interval[1];
        }
        return nanos == 0 ? 0 : messages * 1e9 / nanos;
    }
}
