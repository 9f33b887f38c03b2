package io.seckill.dlq;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.exception.MQClientException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.worker.PollingWorker;

/**
 * Watches the order consumer's dead-letter queue (design 12.3 "DLQ new: any"): publishes
 * {@code mq_dlq_messages{group}} and logs an ERROR whenever it grows, so every dead letter reaches a
 * human ({@code seckill dlq list|replay}).
 */
@Component
class DlqWatcher extends PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(DlqWatcher.class);

    private final SeckillProperties props;
    private final AtomicLong count = new AtomicLong();
    private DeadLetters dlq;

    DlqWatcher(SeckillProperties props, MeterRegistry meters) {
        super("dlq-watch", "dlq.watch", Duration.ofSeconds(5), props, meters);
        this.props = props;
        Gauge.builder("mq.dlq.messages", count, AtomicLong::get).tag("group", props.mq().orderConsumerGroup())
                .register(meters);
    }

    @Override
    protected int runPass() {
        try {
            if (dlq == null) {
                dlq = new DeadLetters(props.mq().namesrv());
            }
        } catch (MQClientException e) {
            throw new IllegalStateException("cannot start the DLQ reader: " + e.getMessage(), e);
        }
        long now = dlq.count(props.mq().orderConsumerGroup());
        long before = count.getAndSet(now);
        if (now > before) {
            log.error("mq.dlq_grew consumer_group={} dead_letters={} new={}: list them with 'seckill dlq list', re-drive "
                    + "with 'seckill dlq replay'", props.mq().orderConsumerGroup(), now, now - before);
        }
        return 0;
    }

    @Override
    public void stop() {
        super.stop();
        if (dlq != null) {
            dlq.close();
        }
    }
}
