package io.seckill.mq;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.common.MixAll;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * How far the order consumer group is behind, by age (DESIGN.md §11.3 point 7): the oldest order
 * message it has not consumed, on the order topic or on the group's retry topic (a message handed
 * back once waits there for its redelivery). Read from the broker at most every
 * {@link #READ_EVERY_MS} and shared by whoever asks on this instance - the deadline sweeper (§11.3
 * point 6) and the entry breaker (point 1) - so the broker answers one reading, not one per asker.
 * Publishes {@code mq_order_backlog_age_seconds}.
 */
@Component
public class OrderBacklog {

    private static final Logger log = LoggerFactory.getLogger(OrderBacklog.class);
    /**
     * Readings are taken at most this often: an asker within this of the last reading gets that one (the
     * entry's reader thread asks this often, for its breaker and its pace). A burst from idle admits
     * at the entry's full speed until two readings find the backlog heading past the order wait
     * target, so the readings' interval is most of what its first orders wait beyond that target.
     */
    public static final long READ_EVERY_MS = 100;

    private static final long FRESH_NANOS = Duration.ofMillis(READ_EVERY_MS).toNanos();
    /**
     * The order consumer writes its group's acknowledged offsets to the broker this often: a reading's
     * {@code consumed} can be this far behind what the consumers have settled. As often as the readings:
     * a reading between two writes sees messages produced and none settled.
     */
    public static final long OFFSETS_WRITTEN_MS = 100;

    /**
     * One reading, taken at {@code atNanos} ({@link System#nanoTime()}): {@code sequence} counts
     * readings (an asker that polls faster than the readings tells a new one from the same one again);
     * {@code ageMs} of the oldest order message not consumed, and the messages {@code produced} to the
     * topics and {@code consumed} by the group so far ({@link BrokerBacklog.Backlog}); all three -1 when
     * the backlog could not be known.
     */
    public record Reading(long sequence, long atNanos, long ageMs, long produced, long consumed) {

        public boolean known() {
            return ageMs >= 0;
        }
    }

    private final BrokerBacklog broker;
    private final String group;
    private final String[] topics;
    private final AtomicLong ageMs = new AtomicLong();
    private Reading last;
    private long readAt;

    OrderBacklog(BrokerBacklog broker, SeckillProperties props, MeterRegistry meters) {
        this.broker = broker;
        this.group = props.mq().orderConsumerGroup();
        this.topics = new String[] {props.mq().orderRequestTopic(), MixAll.getRetryTopic(group)};
        Gauge.builder("mq.order.backlog.age.seconds", ageMs, v -> v.get() / 1000.0)
                .description("age of the oldest order message the consumer group has not consumed, on the order topic "
                        + "or the group's retry topic")
                .register(meters);
    }

    /** The latest reading, taken now when the last one is {@link #READ_EVERY_MS} old or older. */
    public synchronized Reading read() {
        long now = System.nanoTime();
        if (last != null && now - readAt < FRESH_NANOS) {
            return last;
        }
        readAt = now;
        long sequence = last == null ? 1 : last.sequence() + 1;
        try {
            BrokerBacklog.Backlog b = broker.read(group, topics);
            ageMs.set(b.ageMs());
            last = new Reading(sequence, now, b.ageMs(), b.produced(), b.consumed());
        } catch (Exception e) {
            // an unknown backlog is never an empty one: each asker keeps its state until a reading says more
            log.warn(
                    "mq.order_backlog_unknown consumer_group={} error_class={}: {}",
                    group,
                    e.getClass().getName(),
                    e.getMessage());
            last = new Reading(sequence, now, -1, -1, -1);
        }
        return last;
    }

    /** The next {@link #read()} asks the broker, however recent the last reading. */
    public synchronized void expire() {
        readAt = System.nanoTime() - FRESH_NANOS;
    }
}
