package io.seckill.config;

import io.seckill.retry.Backoff;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationStyle;

/**
 * All of the engine's own settings, checked when bound: a nonsensical value fails start-up with
 * a message naming the property.
 */
@ConfigurationProperties("seckill")
public record SeckillProperties(
        @DefaultValue({
            "api",
            "send-due-scanner",
            "order-consumer",
            "outbox-relay",
            "projection",
            "compensation",
            "deadline-sweeper",
            "dlq-watch",
            "payment",
            "reconciler"
        })
        Set<String> roles,

        @DefaultValue("redis://127.0.0.1:6379") String redisUri,
        /** Seed nodes of a Redis Cluster ({@code redis://host:port}, comma-separated); when set, {@code redisUri} is unused. */
        List<String> redisCluster,
        Ids ids,
        Jwt jwt,
        @DefaultValue Mq mq,
        @DefaultValue Reservation reservation,
        @DefaultValue OrderConsumer orderConsumer,
        @DefaultValue Outbox outbox,
        @DefaultValue Admission admission,
        @DefaultValue Deadline deadline,
        @DefaultValue Payment payment,
        @DefaultValue Reconcile reconcile) {

    public static final Set<String> KNOWN_ROLES = Set.of(
            "api",
            "send-due-scanner",
            "order-consumer",
            "outbox-relay",
            "projection",
            "compensation",
            "deadline-sweeper",
            "dlq-watch",
            "payment",
            "reconciler");

    public SeckillProperties {
        for (String role : roles) {
            require(KNOWN_ROLES.contains(role), "seckill.roles", "unknown role '" + role + "', known: " + KNOWN_ROLES);
        }
        require(ids != null, "seckill.ids.keys", "at least one id key is required");
        // only an instance that serves the buyers' and operators' APIs checks tokens: workers are given no JWT secret
        require(
                jwt != null || !roles.contains("api"),
                "seckill.jwt",
                "user-secret and admin-secret (or jwks-uri) are required for the api role");
        require(redisUri != null && redisUri.startsWith("redis"), "seckill.redis-uri", "must be a redis:// URI");
        redisCluster = redisCluster == null ? List.of() : List.copyOf(redisCluster);
        for (String seed : redisCluster) {
            require(
                    seed.startsWith("redis://") || seed.startsWith("rediss://"),
                    "seckill.redis-cluster",
                    "each seed node must be a redis:// URI, got '" + seed + "'");
        }
    }

    public boolean hasRole(String role) {
        return roles.contains(role);
    }

    /**
     * How long the marker of a landed bucket transfer stays: a transfer stopped between its halves is landed by
     * the reconciler once it is older than the watermark, by a run that may start an interval later and, if the
     * instance running it dies, be taken over a lease later; the marker must outlive all of that (twice over) so
     * that no unit lands twice, whatever {@code seckill.reservation.request-map-ttl} is set to.
     */
    public Duration landingMarkerTtl() {
        Duration horizon = reconcile
                .watermark()
                .plus(reconcile.interval())
                .plus(reconcile.lease())
                .multipliedBy(2);
        return reservation.requestMapTtl().compareTo(horizon) >= 0 ? reservation.requestMapTtl() : horizon;
    }

    /** HMAC keys for stable business ids (DESIGN.md §9.1), by version; the highest version is current. */
    public record Ids(Map<Integer, String> keys) {
        public Ids {
            require(keys != null && !keys.isEmpty(), "seckill.ids.keys", "at least one id key is required");
            keys = new TreeMap<>(keys);
            for (var e : keys.entrySet()) {
                require(
                        e.getKey() > 0 && e.getKey() < 1000,
                        "seckill.ids.keys",
                        "version must be 1..999, got " + e.getKey());
                require(
                        e.getValue() != null && e.getValue().length() >= 32,
                        "seckill.ids.keys[" + e.getKey() + "]",
                        "secret must be at least 32 characters");
            }
        }
    }

    /**
     * Bearer tokens. Either HS256 secrets - one for buyers' tokens, a separate one for the admin
     * credential - or {@code jwksUri}, the key set of an identity provider that signs both (then an
     * operator is a token with an operator scope, a buyer one whose {@code sub} is the user id). With an
     * identity provider {@code issuer} and {@code audience} are required - each token's {@code iss} must be
     * the one and its {@code aud} hold the other, so that a token the provider issued to another client never
     * passes - and the key set is fetched over https (plain http on loopback only). With secrets, a rotation keeps
     * the secret before as {@code previousUserSecret} / {@code previousAdminSecret} while the tokens it signed live:
     * each token names its key ({@code kid}, a fingerprint of the secret), and one without a {@code kid} is tried
     * against both. {@code exp} is required;
     * {@code exp}, {@code nbf} and {@code iat} are judged with {@code leeway} of clock skew.
     */
    public record Jwt(
            String userSecret,
            String adminSecret,
            String jwksUri,
            String issuer,
            String audience,
            String previousUserSecret,
            String previousAdminSecret,
            @DefaultValue("30s") Duration leeway) {
        public Jwt {
            require(
                    leeway != null && !leeway.isNegative() && leeway.toMinutes() <= 10,
                    "seckill.jwt.leeway",
                    "must be 0..10m");
            if (jwksUri == null || jwksUri.isBlank()) {
                require(
                        userSecret != null && userSecret.length() >= 32,
                        "seckill.jwt.user-secret",
                        "must be at least 32 characters (or set seckill.jwt.jwks-uri)");
                require(
                        adminSecret != null && adminSecret.length() >= 32,
                        "seckill.jwt.admin-secret",
                        "must be at least 32 characters (or set seckill.jwt.jwks-uri)");
                require(
                        !userSecret.equals(adminSecret),
                        "seckill.jwt.admin-secret",
                        "must differ from the user secret");
                require(
                        previousUserSecret == null
                                || (previousUserSecret.length() >= 32 && !previousUserSecret.equals(userSecret)),
                        "seckill.jwt.previous-user-secret",
                        "must be at least 32 characters and differ from the user secret");
                require(
                        previousAdminSecret == null
                                || (previousAdminSecret.length() >= 32
                                        && !previousAdminSecret.equals(adminSecret)
                                        && !previousAdminSecret.equals(userSecret)),
                        "seckill.jwt.previous-admin-secret",
                        "must be at least 32 characters and differ from the admin and user secrets");
            } else {
                require(
                        jwksUri.startsWith("https://") || (jwksUri.startsWith("http://") && loopback(jwksUri)),
                        "seckill.jwt.jwks-uri",
                        "must be an https URL (plain http only on loopback), got '" + jwksUri + "'");
                require(
                        issuer != null && !issuer.isBlank(),
                        "seckill.jwt.issuer",
                        "is required with an identity provider: each token's iss must be it");
                require(
                        audience != null && !audience.isBlank(),
                        "seckill.jwt.audience",
                        "is required with an identity provider: each token's aud must hold it, so that a token "
                                + "issued to another client is refused");
                require(
                        userSecret == null
                                && adminSecret == null
                                && previousUserSecret == null
                                && previousAdminSecret == null,
                        "seckill.jwt.jwks-uri",
                        "is an alternative to the secrets: set one or the other");
            }
        }

        /** Tokens are verified against an identity provider's key set rather than shared secrets. */
        public boolean identityProvider() {
            return jwksUri != null && !jwksUri.isBlank();
        }

        /** For the tools that mint tokens with shared secrets. */
        public static Jwt secrets(String userSecret, String adminSecret) {
            return new Jwt(userSecret, adminSecret, null, null, null, null, null, Duration.ofSeconds(30));
        }

        /** Whether the URL's host is this machine's loopback (127.0.0.0/8, localhost, ::1). */
        static boolean loopback(String url) {
            try {
                String host = java.net.URI.create(url).getHost();
                return host != null && (host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]"));
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
    }

    public record Mq(
            @DefaultValue("127.0.0.1:9876") String namesrv,
            @DefaultValue("SECKILL_ORDER_REQUEST") String orderRequestTopic,
            @DefaultValue("SECKILL_ORDER_EVENT") String orderEventTopic,
            @DefaultValue("seckill-order-consumer") String orderConsumerGroup,
            @DefaultValue("seckill-projection") String projectionGroup,
            @DefaultValue("16") int maxReconsumeTimes,
            @DefaultValue("3s") Duration sendTimeout,
            String accessKey,
            String secretKey,
            @DefaultValue("4") int orderQueues,
            @DefaultValue("4") int eventQueues) {
        public Mq {
            between(orderQueues, 1, 1024, "seckill.mq.order-queues");
            between(eventQueues, 1, 1024, "seckill.mq.event-queues");
            require(namesrv != null && !namesrv.isBlank(), "seckill.mq.namesrv", "is required");
            boolean ak = accessKey != null && !accessKey.isBlank();
            boolean sk = secretKey != null && !secretKey.isBlank();
            require(
                    ak == sk,
                    ak ? "seckill.mq.secret-key" : "seckill.mq.access-key",
                    "is required with " + (ak ? "seckill.mq.access-key" : "seckill.mq.secret-key")
                            + " (RocketMQ ACL credentials come as a pair)");
            between(maxReconsumeTimes, 1, 32, "seckill.mq.max-reconsume-times");
            atLeast(sendTimeout, "100ms", "seckill.mq.send-timeout");
        }

        /** The brokers ask every client for its ACL credentials ({@code seckill.mq.access-key} and {@code secret-key}). */
        public boolean authenticated() {
            return accessKey != null && !accessKey.isBlank();
        }

        @Override
        public String toString() {
            return "Mq[namesrv=" + namesrv + ", orderRequestTopic=" + orderRequestTopic + ", orderEventTopic="
                    + orderEventTopic + ", orderConsumerGroup=" + orderConsumerGroup + ", projectionGroup="
                    + projectionGroup + ", maxReconsumeTimes=" + maxReconsumeTimes + ", sendTimeout=" + sendTimeout
                    + ", accessKey=" + accessKey + ", secretKey=" + (secretKey == null ? null : "(set)")
                    + ", orderQueues="
                    + orderQueues + ", eventQueues=" + eventQueues + "]";
        }
    }

    public record Reservation(
            @DefaultValue("5s") Duration sendGrace,
            @DefaultValue("2000") int maxInFlightSends,
            @DefaultValue("24h") Duration requestMapTtl,
            @DefaultValue("2s") Duration projectionStaleAfter,
            @DefaultValue("500") int statusDbReadsPerSecond,
            @DefaultValue("10s") Duration scanLease,
            @DefaultValue("200") int scanBatch,
            @DefaultValue("200ms") Duration scanInterval,
            @DefaultValue("64") int sendBatch,
            @DefaultValue("32") int sendBatchesInFlight,
            @DefaultValue("5ms") Duration sendLinger) {
        public Reservation {
            between(sendBatch, 1, 1000, "seckill.reservation.send-batch");
            between(statusDbReadsPerSecond, 0, Integer.MAX_VALUE, "seckill.reservation.status-db-reads-per-second");
            atLeast(sendLinger, "0ms", "seckill.reservation.send-linger");
            require(
                    sendLinger.compareTo(Duration.ofSeconds(1)) <= 0,
                    "seckill.reservation.send-linger",
                    "must be at most 1s (the answer does not wait for it, the order does)");
            between(sendBatchesInFlight, 1, Integer.MAX_VALUE, "seckill.reservation.send-batches-in-flight");
            atLeast(sendGrace, "100ms", "seckill.reservation.send-grace");
            between(maxInFlightSends, 1, Integer.MAX_VALUE, "seckill.reservation.max-in-flight-sends");
            atLeast(requestMapTtl, "1m", "seckill.reservation.request-map-ttl");
            atLeast(scanLease, "500ms", "seckill.reservation.scan-lease");
            atLeast(scanInterval, "10ms", "seckill.reservation.scan-interval");
            between(scanBatch, 1, 5000, "seckill.reservation.scan-batch");
        }
    }

    /**
     * The order consumer: {@code batchSize} orders per transaction (1 is the per-message mode, one
     * transaction per order), {@code threads} committers (concurrent
     * transactions). {@code consumeTimeout}: how long a delivery may stay unacknowledged - an order group
     * held through a PostgreSQL outage is - before the broker client hands it back for a redelivery (the
     * inbox makes that copy harmless; whole minutes, RocketMQ's unit).
     */
    public record OrderConsumer(
            @DefaultValue("50") int batchSize,
            @DefaultValue("4") int threads,
            @DefaultValue("60m") Duration consumeTimeout) {
        public OrderConsumer {
            between(batchSize, 1, 1024, "seckill.order-consumer.batch-size");
            between(threads, 1, 64, "seckill.order-consumer.threads");
            atLeast(consumeTimeout, "1m", "seckill.order-consumer.consume-timeout");
        }
    }

    public record Outbox(
            @DefaultValue("200") int batchSize,
            @DefaultValue("30s") Duration lease,
            @DefaultValue("500ms") Duration baseBackoff,
            @DefaultValue("30s") Duration maxBackoff,
            @DefaultValue("24h") Duration retention,
            @DefaultValue("50ms") Duration idlePoll,
            @DefaultValue("2") int threads)
            implements Retrying {
        public Outbox {
            between(batchSize, 1, 5000, "seckill.outbox.batch-size");
            between(threads, 1, 64, "seckill.outbox.threads");
            atLeast(lease, "1s", "seckill.outbox.lease");
            atLeast(idlePoll, "1ms", "seckill.outbox.idle-poll");
            backoffRange(baseBackoff, maxBackoff, "seckill.outbox");
        }
    }

    /**
     * The channel's statement ({@code seckill.payment.statement.*}): read every {@code interval}, up to
     * {@code delay} before now (the channel's own lag in listing a payment), the first time from
     * {@code lookback} back; every {@code rereadEvery} the whole lookback window is read again (a
     * payment the channel listed later than {@code delay}).
     */
    public record Statement(
            @DefaultValue("60s") Duration interval,
            @DefaultValue("30s") Duration delay,
            @DefaultValue("24h") Duration lookback,
            @DefaultValue("1h") Duration rereadEvery) {
        public Statement {
            atLeast(interval, "100ms", "seckill.payment.statement.interval");
            atLeast(delay, "0s", "seckill.payment.statement.delay");
            require(
                    lookback.compareTo(delay) > 0,
                    "seckill.payment.statement.lookback",
                    "must be longer than the delay (" + delay + ")");
            require(
                    rereadEvery.compareTo(interval) >= 0,
                    "seckill.payment.statement.reread-every",
                    "must be at least the interval (" + interval + ")");
        }
    }

    /**
     * The entry breaker ({@code maxUnsentAge}: pause admission when reservations stop reaching the
     * broker; {@code maxOrderBacklogAge}: pause it when the oldest order message the consumers have not
     * consumed is older than this, 0 = never - at least 5s, above the few seconds a consumer's acknowledged
     * offset may take to reach the broker); {@code orderWaitTarget}: pace new reservations to what the order
     * consumers settle once the oldest order message waits longer than this, 0 = never (at least 1s,
     * under {@code maxOrderBacklogAge}; the reservation package's OrderPace);
     * {@code maxPerSecond}: reservation requests one instance admits per second (0 = no
     * limit); {@code maxPerUserPerSecond}: the same for one buyer. Above any of them, 429.
     * {@code entryPort}: the port of the lean admission entry, which serves only the reserve call
     * (-1: off; 0: any free port); {@code entryThreads}: the threads that answer it.
     */
    public record Admission(
            @DefaultValue("15s") Duration maxUnsentAge,
            @DefaultValue("0") int maxPerSecond,
            @DefaultValue("10") int maxPerUserPerSecond,
            @DefaultValue("-1") int entryPort,
            @DefaultValue("32") int entryThreads,
            @DefaultValue EntryLimits entryLimits,
            @DefaultValue("20s") Duration maxOrderBacklogAge,
            @DefaultValue("0s") Duration orderWaitTarget,
            @DefaultValue("200ms") Duration soldOutMemoPoll) {
        /**
         * The shortest order wait target. The broker's view of the oldest order message holds, besides its
         * wait, up to 100 ms of offsets not yet written and the consumers' own time for a message (pull,
         * batch, commit); a target near that floor cannot be reached and paces the entry toward nothing.
         */
        public static final Duration MIN_ORDER_WAIT_TARGET = Duration.ofSeconds(1);

        /** What a returned unit's hold is longer than the sold-out memo's poll by: a poll's own time and lateness. */
        public static final Duration SOLD_OUT_HOLD_SLACK = Duration.ofMillis(300);

        public Admission {
            requireOrderWaitTarget(orderWaitTarget);
            require(
                    soldOutMemoPoll != null
                            && (soldOutMemoPoll.isZero()
                                    || (soldOutMemoPoll.compareTo(Duration.ofMillis(20)) >= 0
                                            && soldOutMemoPoll.compareTo(Duration.ofMillis(500)) <= 0)),
                    "seckill.admission.sold-out-memo-poll",
                    "must be 0s (no memo) or between 20ms and 500ms (a returned unit is sellable within 1 s), got "
                            + soldOutMemoPoll);
            require(
                    entryPort >= -1 && entryPort <= 65535,
                    "seckill.admission.entry-port",
                    "must be -1 (off), 0 (any) or a port");
            between(entryThreads, 1, 1024, "seckill.admission.entry-threads");
            require(
                    maxPerUserPerSecond >= 0,
                    "seckill.admission.max-per-user-per-second",
                    "must be 0 (no limit) or positive");
            atLeast(maxUnsentAge, "1s", "seckill.admission.max-unsent-age");
            require(
                    maxOrderBacklogAge != null
                            && (maxOrderBacklogAge.isZero()
                                    || maxOrderBacklogAge.compareTo(Duration.ofSeconds(5)) >= 0),
                    "seckill.admission.max-order-backlog-age",
                    "must be 0s (off) or at least 5s, got " + maxOrderBacklogAge);
            require(maxPerSecond >= 0, "seckill.admission.max-per-second", "must be 0 (no limit) or positive");
            require(
                    orderWaitTarget.isZero()
                            || maxOrderBacklogAge.isZero()
                            || orderWaitTarget.compareTo(maxOrderBacklogAge) < 0,
                    "seckill.admission.order-wait-target",
                    "must be under seckill.admission.max-order-backlog-age (" + maxOrderBacklogAge + "), got "
                            + orderWaitTarget);
        }

        /**
         * How long units returned to an empty bucket are kept from buyers (lua/lib/refill.lua), and how long an
         * instance answers from a sold-out memory it has not confirmed since (reservation.SoldOutMemo): the poll
         * plus {@link #SOLD_OUT_HOLD_SLACK}, so 500 ms by default and under a second at most; none without a memo.
         */
        public Duration soldOutHold() {
            return soldOutMemoPoll.isZero() ? Duration.ZERO : soldOutMemoPoll.plus(SOLD_OUT_HOLD_SLACK);
        }

        /** Refuses an order wait target that is neither 0 (off) nor at least {@link #MIN_ORDER_WAIT_TARGET}. */
        public static void requireOrderWaitTarget(Duration target) {
            require(
                    target != null && (target.isZero() || target.compareTo(MIN_ORDER_WAIT_TARGET) >= 0),
                    "seckill.admission.order-wait-target",
                    "must be 0s (off) or at least 1s, got " + target);
        }
    }

    /**
     * What clients may hold of the admission entry ({@code seckill.admission.entry-limits.*}): open
     * connections over {@code maxConnections} in all, or over {@code maxConnectionsPerAddress} from one remote
     * address, are closed at once (behind a proxy that does not keep the client's address, raise the latter to the
     * former); {@code maxCallsPerAddressPerSecond} calls a second from one address are answered, the rest refused 429
     * before their token is checked (0, the default: no cap; set it where the entry sees the clients' own addresses);
     * a connection must send its first byte within {@code firstByteTimeout} and a request must arrive whole
     * within {@code requestTimeout} of its first byte (a client holding silent connections, or trickling bytes, is
     * closed); a connection with {@code maxPipelined} calls unanswered is not read further until answers go out. An
     * answer that asks the client to come back (429, 503) is written {@code retryAnswerDelay} after it is ready: a
     * client that asks again at once after each refusal is then answered once a delay per connection, and the cores
     * stay with the calls that can be served and the orders behind them (0s: at once; at most 1s, the Retry-After).
     */
    public record EntryLimits(
            @DefaultValue("10000") int maxConnections,
            @DefaultValue("1000") int maxConnectionsPerAddress,
            @DefaultValue("0") int maxCallsPerAddressPerSecond,
            @DefaultValue("5s") Duration firstByteTimeout,
            @DefaultValue("10s") Duration requestTimeout,
            @DefaultValue("16") int maxPipelined,
            @DefaultValue("100ms") Duration retryAnswerDelay) {
        /** The longest {@code retryAnswerDelay}: the Retry-After every such answer carries. */
        public static final Duration MAX_RETRY_ANSWER_DELAY = Duration.ofSeconds(1);

        public EntryLimits {
            require(
                    retryAnswerDelay != null
                            && !retryAnswerDelay.isNegative()
                            && retryAnswerDelay.compareTo(MAX_RETRY_ANSWER_DELAY) <= 0,
                    "seckill.admission.entry-limits.retry-answer-delay",
                    "must be 0s (at once) up to 1s (the Retry-After), got " + retryAnswerDelay);
            between(maxConnections, 1, Integer.MAX_VALUE, "seckill.admission.entry-limits.max-connections");
            between(
                    maxConnectionsPerAddress,
                    1,
                    maxConnections,
                    "seckill.admission.entry-limits.max-connections-per-address");
            atLeast(firstByteTimeout, "100ms", "seckill.admission.entry-limits.first-byte-timeout");
            between(
                    maxCallsPerAddressPerSecond,
                    0,
                    Integer.MAX_VALUE,
                    "seckill.admission.entry-limits.max-calls-per-address-per-second");
            atLeast(requestTimeout, "100ms", "seckill.admission.entry-limits.request-timeout");
            between(maxPipelined, 1, 1024, "seckill.admission.entry-limits.max-pipelined");
        }
    }

    /**
     * DESIGN.md §11.3, point 6: time-driven rejection pauses while the order topic's oldest unconsumed
     * message is older than this (a backed-up broker makes reservations look expired).
     */
    public record Deadline(@DefaultValue("30s") Duration pauseWhenBacklogOlderThan) {
        public Deadline {
            atLeast(pauseWhenBacklogOlderThan, "500ms", "seckill.deadline.pause-when-backlog-older-than");
        }
    }

    /**
     * The payment channel (DESIGN.md §7.6): where it is, the secret its callbacks are signed with, how far
     * a callback's timestamp may be off, the pace of the timeout canceller and refund worker, and how the
     * channel's statement is read.
     */
    public record Payment(
            @DefaultValue("paysim") String provider,
            @DefaultValue("http://127.0.0.1:8091") String channelUrl,
            String callbackSecret,
            @DefaultValue("300s") Duration callbackWindow,
            String notifyUrl,
            @DefaultValue("3s") Duration channelTimeout,
            @DefaultValue("30s") Duration lease,
            @DefaultValue("100") int batch,
            @DefaultValue("500ms") Duration scanInterval,
            @DefaultValue("1s") Duration baseBackoff,
            @DefaultValue("60s") Duration maxBackoff,
            @DefaultValue Statement statement)
            implements Retrying {
        public Payment {
            require(
                    "paysim".equals(provider),
                    "seckill.payment.provider",
                    "unknown provider '" + provider + "', known: [paysim]");
            require(
                    channelUrl != null && channelUrl.startsWith("http"),
                    "seckill.payment.channel-url",
                    "must be an http(s) URL");
            require(
                    callbackSecret == null || callbackSecret.length() >= 32,
                    "seckill.payment.callback-secret",
                    "must be at least 32 characters");
            atLeast(callbackWindow, "1s", "seckill.payment.callback-window");
            require(
                    notifyUrl == null || notifyUrl.startsWith("http"),
                    "seckill.payment.notify-url",
                    "must be an http(s) URL");
            atLeast(channelTimeout, "100ms", "seckill.payment.channel-timeout");
            require(
                    lease.compareTo(channelTimeout.multipliedBy(3)) >= 0,
                    "seckill.payment.lease",
                    "must be at least three channel timeouts (" + channelTimeout.multipliedBy(3) + ")");
            between(batch, 1, 5000, "seckill.payment.batch");
            atLeast(scanInterval, "10ms", "seckill.payment.scan-interval");
            backoffRange(baseBackoff, maxBackoff, "seckill.payment");
        }
    }

    /**
     * Reconciliation (DESIGN.md §10.6): only data last changed more than {@code watermark} ago is judged
     * (longer than a transaction, the outbox delay and the projection delay together, plus margin).
     * Periodic runs judge what changed since the last run; every {@code fullPassEvery} each SKU is
     * judged whole once more (Redis-side drift leaves no trace in PostgreSQL's change times). A live SKU's
     * recalibration pauses its admission for at most {@code recalibrationDrain} while its open
     * reservations settle, then tries again on a later run.
     */
    public record Reconcile(
            @DefaultValue("2m") Duration watermark,
            @DefaultValue("30s") Duration interval,
            @DefaultValue("5m") Duration lease,
            @DefaultValue("10m") Duration fullPassEvery,
            @DefaultValue("5s") Duration recalibrationDrain) {
        public Reconcile {
            atLeast(fullPassEvery, "1s", "seckill.reconcile.full-pass-every");
            atLeast(recalibrationDrain, "100ms", "seckill.reconcile.recalibration-drain");
            atLeast(watermark, "1s", "seckill.reconcile.watermark");
            atLeast(interval, "1s", "seckill.reconcile.interval");
            require(
                    lease.compareTo(interval) >= 0,
                    "seckill.reconcile.lease",
                    "must be at least the interval (" + interval + ")");
        }
    }

    /** A group whose failures are retried with capped exponential backoff ({@code base-backoff}, {@code max-backoff}). */
    public interface Retrying {
        Duration baseBackoff();

        Duration maxBackoff();

        default Backoff backoff() {
            return new Backoff(baseBackoff(), maxBackoff());
        }
    }

    static void require(boolean ok, String property, String message) {
        if (!ok) {
            throw new IllegalArgumentException(property + ": " + message);
        }
    }

    static void between(long value, long min, long max, String property) {
        require(
                value >= min && value <= max,
                property,
                max == Integer.MAX_VALUE
                        ? "must be at least " + min + ", got " + value
                        : "must be " + min + ".." + max + ", got " + value);
    }

    /** {@code min} in the properties' own notation ({@code 100ms}, {@code 1s}, {@code 1m}). */
    static void atLeast(Duration value, String min, String property) {
        require(value != null, property, "is required");
        require(
                value.compareTo(DurationStyle.SIMPLE.parse(min)) >= 0,
                property,
                "must be at least " + min + ", got " + value);
    }

    static void backoffRange(Duration base, Duration max, String group) {
        atLeast(base, "0s", group + ".base-backoff");
        require(base.compareTo(max) <= 0, group + ".base-backoff", "must not exceed max-backoff (" + max + ")");
    }
}
