package io.seckill.mq;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.rocketmq.common.MixAll;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.seckill.config.SeckillProperties;

/**
 * How far the order consumer group is behind, by age (DESIGN.md §11.3 point 7): the oldest order
 * message it has not consumed, on the order topic or on the group's retry topic (a message handed
 * back once waits there for its redelivery). Read from the broker at most once a second and shared by
 * whoever asks on this instance - the deadline sweeper (§11.3 point 6) and the entry breaker (point 1)
 * - so the broker answers one reading, not one per asker. Publishes
 * {@code mq_order_backlog_age_seconds}.
 */
@Component
public class OrderBacklog {

    private static final Logger log = LoggerFactory.getLogger(OrderBacklog.class);
    private static final long FRESH_NANOS = Duration.ofSeconds(1).toNanos();

    /**
     * One reading: {@code sequence} counts readings (an asker that polls faster than the readings
     * tells a new one from the same one again), {@code ageMs} is -1 when the age could not be known.
     */
    public record Reading(long sequence, long ageMs) {

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
                        + "or the group's retry topic").register(meters);
    }

    /** The latest reading, taken now when the last one is a second old or older. */
    public synchronized Reading read() {
        long now = System.nanoTime();
        if (last != null && now - readAt < FRESH_NANOS) {
            return last;
        }
        readAt = now;
        long sequence = last == null ? 1 : last.sequence() + 1;
        try {
            long age = broker.oldestUnconsumedAgeMs(group, topics);
            ageMs.set(age);
            last = new Reading(sequence, age);
        } catch (Exception e) {
            // an unknown backlog is never an empty one: each asker keeps its state until a reading says more
            log.warn("mq.order_backlog_unknown consumer_group={} error_class={}: {}", group, e.getClass().getName(),
                    e.getMessage());
            last = new Reading(sequence, -1);
        }
        return last;
    }

    /** The next {@link #read()} asks the broker, however recent the last reading. */
    public synchronized void expire() {
        readAt = System.nanoTime() - FRESH_NANOS;
    }
}
