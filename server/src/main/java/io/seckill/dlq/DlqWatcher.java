package io.seckill.dlq;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.mq.MqClients;
import io.seckill.worker.PollingWorker;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.exception.MQClientException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Watches the dead-letter queues of both consumer groups (DESIGN.md §12.3 "DLQ new: any"): the order
 * consumer's and the projection's. Publishes {@code mq_dlq_messages{group}} (NaN until the first reading, so a new
 * instance's series starts at the count, not at 0) and logs an ERROR whenever one grows after that, so every dead letter reaches a human ({@code seckill dlq list|replay --group G}); a dead
 * projection event is also repaired by reconciliation, PostgreSQL being the truth.
 */
@Component
class DlqWatcher extends PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(DlqWatcher.class);

    private final Map<String, AtomicLong> counts = new LinkedHashMap<>();
    private DeadLetters dlq;
    /** A group's count before its first reading. */
    private static final long UNREAD = -1;

    DlqWatcher(SeckillProperties props, MeterRegistry meters) {
        super("dlq-watch", "dlq.watch", Duration.ofSeconds(5), props, meters);
        for (String group : List.of(props.mq().orderConsumerGroup(), props.mq().projectionGroup())) {
            AtomicLong count = new AtomicLong(UNREAD);
            counts.put(group, count);
            // no value until the first reading: a series that started at 0 and jumped to the dead letters already
            // there would look like new ones to the alert on every start of an instance
            Gauge.builder("mq.dlq.messages", count, c -> c.get() == UNREAD ? Double.NaN : c.get())
                    .tag("group", group)
                    .register(meters);
        }
    }

    @Override
    protected int runPass() {
        try {
            if (dlq == null) {
                dlq = new DeadLetters(props.mq().namesrv(), MqClients.credentials(props.mq()));
            }
        } catch (MQClientException e) {
            throw new IllegalStateException("cannot start the DLQ reader: " + e.getMessage(), e);
        }
        counts.forEach((group, count) -> {
            long now = dlq.count(group);
            long before = count.getAndSet(now);
            if (before != UNREAD && now > before) {
                log.error(
                        "mq.dlq_grew consumer_group={} dead_letters={} new={}: list them with 'seckill dlq list --group {}', "
                                + "re-drive with 'seckill dlq replay --group {}'",
                        group,
                        now,
                        now - before,
                        group,
                        group);
            }
        });
        return 0;
    }

    /** Stopped roles may be started again (a paused context resumes): the reader is opened anew then. */
    @Override
    protected void stopRole() {
        super.stopRole();
        if (dlq != null) {
            dlq.close();
            dlq = null;
        }
    }
}
