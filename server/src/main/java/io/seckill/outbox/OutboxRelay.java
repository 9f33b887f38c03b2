package io.seckill.outbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.tracing.Span;
import io.seckill.anomaly.Anomalies;
import io.seckill.anomaly.AnomalyKind;
import io.seckill.anomaly.StalledWork;
import io.seckill.config.SeckillProperties;
import io.seckill.mq.MqClients;
import io.seckill.reservation.ReservationIds;
import io.seckill.state.ObjectKind;
import io.seckill.trace.PipelineTrace;
import io.seckill.worker.PollingWorker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The outbox relay (DESIGN.md §9.5, §10.4): claim due rows with a lease (one short statement, SKIP
 * LOCKED), send them outside any transaction - all of a claim asynchronously at once - then mark
 * SENT or RETRY only where this relay still owns the lease. {@code seckill.outbox.threads} passes run
 * side by side, each with a lease owner of its own (one claims while another waits for the broker's
 * answers). Sent rows are purged after the retention period, and the backlog gauges read, once a
 * second on the housekeeping thread. The loop never dies: a failed pass is logged, counted and backed
 * off.
 */
@Component
class OutboxRelay extends PollingWorker {

    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

    private final OutboxRepository outbox;
    private final StalledWork stalled;
    private final DefaultMQProducer producer;
    private final PipelineTrace trace;
    private final Anomalies anomalies;
    private final Counter manual;
    private final SeckillProperties.Outbox cfg;
    /** One lease owner per lane: a pass settles only what its own claim holds. */
    private final String[] owners;

    private final DistributionSummary attempts;
    private final TransactionTemplate tx;

    private final ReservationIds ids;

    OutboxRelay(
            OutboxRepository outbox,
            DefaultMQProducer producer,
            StalledWork stalled,
            Anomalies anomalies,
            PipelineTrace trace,
            TransactionTemplate tx,
            SeckillProperties props,
            ReservationIds ids,
            MeterRegistry meters) {
        super("outbox-relay", "outbox.relay", props.outbox().idlePoll(), props, meters);
        this.ids = ids;
        this.cfg = props.outbox();
        this.manual = Counter.builder("outbox.manual")
                .description("events the broker refuses as they are, kept MANUAL with an anomaly")
                .register(meters);
        String instance = MqClients.instanceName("outbox-relay");
        this.owners = IntStream.range(0, cfg.threads())
                .mapToObj(i -> instance + "/" + i)
                .toArray(String[]::new);
        showBacklog("outbox.pending", "outbox.oldest.age.seconds", outbox::backlog);
        everySecond("purge", this::purge);
        this.attempts = DistributionSummary.builder("outbox.attempt.count")
                .description("how many sends an event took before the broker confirmed it (1 = the first)")
                .serviceLevelObjectives(1, 2, 3, 5, 10)
                .register(meters);
        this.outbox = outbox;
        this.producer = producer;
        this.stalled = stalled;
        this.anomalies = anomalies;
        this.trace = trace;
        this.tx = tx;
    }

    @Override
    protected int threads() {
        return owners.length;
    }

    /**
     * A pass that claimed less than half a batch is followed by a wait of {@code idle-poll}: each claim
     * reads past the events other lanes hold and the settled ones vacuum has not removed yet at the head
     * of the queue, so under a steady trickle a claim of one or two events costs nearly what a full one
     * does. After the wait the claim carries what arrived in the meantime.
     */
    @Override
    protected int runPass() {
        int claimed = relayOnce();
        if (claimed > 0 && claimed < cfg.batchSize() / 2) {
            LockSupport.parkNanos(cfg.idlePoll().toNanos());
        }
        return claimed;
    }

    /** One claim-send-settle pass of the calling lane; returns how many rows were claimed. */
    int relayOnce() {
        String owner = owners[lane()];
        List<OutboxRepository.Claimed> claimed = outbox.claimDue(cfg.batchSize(), owner, cfg.lease());
        if (claimed.isEmpty()) {
            return 0;
        }
        List<CompletableFuture<Void>> sends = new ArrayList<>(claimed.size());
        List<UUID> sent = Collections.synchronizedList(new ArrayList<>());
        for (OutboxRepository.Claimed c : claimed) {
            log.debug(
                    "outbox.claimed outbox_event_id={} event_type={} attempt_count={}",
                    c.eventId(),
                    c.eventType(),
                    c.attempt());
            CompletableFuture<Void> f = new CompletableFuture<>();
            sends.add(f);
            send(c, f, sent);
        }
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
                .orTimeout(props.mq().sendTimeout().toMillis() * 3, TimeUnit.MILLISECONDS)
                .exceptionally(e -> null)
                .join();
        if (!sent.isEmpty()) {
            Set<UUID> ids;
            synchronized (sent) {
                ids = Set.copyOf(sent);
            }
            int settled = outbox.markSent(List.copyOf(ids), owner);
            for (OutboxRepository.Claimed c : claimed) {
                if (ids.contains(c.eventId())) {
                    attempts.record(c.attempt());
                }
            }
            if (settled != ids.size()) {
                log.warn(
                        "outbox.lease_lost owner={} sent={} settled={}: the rest will be sent again (receivers dedupe by "
                                + "event_id)",
                        owner,
                        ids.size(),
                        settled);
            }
        }
        for (int i = 0; i < claimed.size(); i++) {
            CompletableFuture<Void> f = sends.get(i);
            if (!f.isDone() || f.isCompletedExceptionally()) {
                OutboxRepository.Claimed c = claimed.get(i);
                Throwable cause = f.isDone() ? f.handle((v, e) -> e).join() : null;
                String error = cause != null ? cause.toString() : "send timed out";
                if (refusedForGood(cause)) {
                    manual(c, owner, error);
                    continue;
                }
                meters.counter("outbox.send", "result", "retry").increment();
                log.warn(
                        "outbox.send_unknown outbox_event_id={} event_type={} attempt_count={}: {}",
                        c.eventId(),
                        c.eventType(),
                        c.attempt(),
                        error);
                if (!outbox.markRetry(c.eventId(), owner, cfg.backoff(), error)) {
                    log.warn("outbox.lease_lost owner={} outbox_event_id={}", owner, c.eventId());
                }
                stalled.failed(
                        "outbox-relay",
                        AnomalyKind.OUTBOX_SEND_STALLED,
                        ObjectKind.OUTBOX_EVENT,
                        c.eventId().toString(),
                        null,
                        null,
                        c.attempt(),
                        error,
                        Map.of(
                                "event_type",
                                c.eventType(),
                                "aggregate_id",
                                c.aggregateId().toString()));
            }
        }
        return claimed.size();
    }

    private void send(OutboxRepository.Claimed c, CompletableFuture<Void> done, List<UUID> sent) {
        Message m = new Message(
                props.mq().orderEventTopic(),
                c.eventType(),
                c.aggregateId().toString(),
                c.payload().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        m.putUserProperty("event_id", c.eventId().toString());
        m.putUserProperty("event_type", c.eventType());
        // signed with the current id key: the projection applies only what the engine itself sent
        int version = ids.currentVersion();
        m.putUserProperty(OutboxEvent.SIGNATURE_VERSION, Integer.toString(version));
        m.putUserProperty(OutboxEvent.SIGNATURE, ids.eventSignature(version, m.getBody()));
        Span span = trace.send("outbox relay send", c.traceparent(), m).tag("event_type", c.eventType());
        done.whenComplete((ok, e) -> {
            if (e != null) {
                span.error(e);
            }
            span.end();
        });
        try {
            producer.send(
                    m,
                    new SendCallback() {
                        @Override
                        public void onSuccess(SendResult r) {
                            if (r.getSendStatus() == SendStatus.SEND_OK) {
                                meters.counter("outbox.send", "result", "ok").increment();
                                sent.add(c.eventId());
                                done.complete(null);
                            } else {
                                done.completeExceptionally(
                                        new IllegalStateException("send status " + r.getSendStatus()));
                            }
                        }

                        @Override
                        public void onException(Throwable e) {
                            done.completeExceptionally(e);
                        }
                    },
                    props.mq().sendTimeout().toMillis());
        } catch (Exception e) {
            done.completeExceptionally(e);
        }
    }

    /**
     * The broker (or the client's own check before sending) refuses the message for what it is - too
     * large, an illegal property: the same event will be refused every time. Anything else, including
     * every outage, is transient.
     */
    static boolean refusedForGood(Throwable e) {
        Throwable t = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        return t instanceof MQClientException c && c.getResponseCode() == ResponseCode.MESSAGE_ILLEGAL
                || t instanceof MQBrokerException b && b.getResponseCode() == ResponseCode.MESSAGE_ILLEGAL;
    }

    /** The event MANUAL and its OUTBOX_MANUAL anomaly in one transaction: never the one without the other. */
    private void manual(OutboxRepository.Claimed c, String owner, String error) {
        boolean owned = Boolean.TRUE.equals(tx.execute(s -> {
            if (!outbox.markManual(c.eventId(), owner, error)) {
                return false;
            }
            anomalies.record(
                    AnomalyKind.OUTBOX_MANUAL,
                    ObjectKind.OUTBOX_EVENT,
                    c.eventId().toString(),
                    null,
                    null,
                    Map.of(
                            "event_type",
                            c.eventType(),
                            "aggregate_id",
                            c.aggregateId().toString(),
                            "error",
                            error));
            return true;
        }));
        if (!owned) {
            log.warn("outbox.lease_lost owner={} outbox_event_id={}", owner, c.eventId());
            return;
        }
        manual.increment();
        log.error(
                "outbox.manual outbox_event_id={} event_type={} aggregate_id={} attempt_count={}: the broker refuses the "
                        + "event as it is; kept MANUAL for a person: {}",
                c.eventId(),
                c.eventType(),
                c.aggregateId(),
                c.attempt(),
                error);
    }

    private void purge() {
        int purged = outbox.purgeSent(cfg.retention(), 1000);
        if (purged > 0) {
            log.debug("outbox.purged rows={}", purged);
        }
    }
}
