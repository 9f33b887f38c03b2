package io.seckill.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.seckill.retry.Backoff;

/**
 * All of the engine's own settings, checked when bound: a nonsensical value fails start-up with
 * a message naming the property.
 */
@ConfigurationProperties("seckill")
public record SeckillProperties(
        @DefaultValue({"api", "send-due-scanner", "order-consumer", "outbox-relay", "projection", "compensation",
                "deadline-sweeper", "dlq-watch", "payment", "reconciler"})
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

    public static final Set<String> KNOWN_ROLES = Set.of("api", "send-due-scanner", "order-consumer", "outbox-relay",
            "projection", "compensation", "deadline-sweeper", "dlq-watch", "payment", "reconciler");

    public SeckillProperties {
        for (String role : roles) {
            require(KNOWN_ROLES.contains(role), "seckill.roles", "unknown role '" + role + "', known: " + KNOWN_ROLES);
        }
        require(ids != null, "seckill.ids.keys", "at least one id key is required");
        require(jwt != null, "seckill.jwt", "user-secret and admin-secret (or jwks-uri) are required");
        require(redisUri != null && redisUri.startsWith("redis"), "seckill.redis-uri", "must be a redis:// URI");
        redisCluster = redisCluster == null ? List.of() : List.copyOf(redisCluster);
        for (String seed : redisCluster) {
            require(seed.startsWith("redis://") || seed.startsWith("rediss://"), "seckill.redis-cluster",
                    "each seed node must be a redis:// URI, got '" + seed + "'");
        }
    }

    public boolean hasRole(String role) {
        return roles.contains(role);
    }

    /** HMAC keys for stable business ids (DESIGN.md §9.1), by version; the highest version is current. */
    public record Ids(Map<Integer, String> keys) {
        public Ids {
            require(keys != null && !keys.isEmpty(), "seckill.ids.keys", "at least one id key is required");
            keys = new TreeMap<>(keys);
            for (var e : keys.entrySet()) {
                require(e.getKey() > 0 && e.getKey() < 1000, "seckill.ids.keys", "version must be 1..999, got " + e.getKey());
                require(e.getValue() != null && e.getValue().length() >= 32, "seckill.ids.keys[" + e.getKey() + "]",
                        "secret must be at least 32 characters");
            }
        }
    }

    /**
     * Bearer tokens. Either HS256 secrets - one for buyers' tokens, a separate one for the admin
     * credential - or {@code jwksUri}, the key set of an identity provider that signs both (then an
     * admin is a token with scope {@code seckill:admin}, a buyer one whose {@code sub} is the user
     * id); {@code issuer}, when set, must be each token's {@code iss}. {@code exp} is required;
     * {@code exp}, {@code nbf} and {@code iat} are judged with {@code leeway} of clock skew.
     */
    public record Jwt(String userSecret, String adminSecret, String jwksUri, String issuer,
            @DefaultValue("30s") Duration leeway) {
        public Jwt {
            require(leeway != null && !leeway.isNegative() && leeway.toMinutes() <= 10, "seckill.jwt.leeway",
                    "must be 0..10m");
            if (jwksUri == null || jwksUri.isBlank()) {
                require(userSecret != null && userSecret.length() >= 32, "seckill.jwt.user-secret",
                        "must be at least 32 characters (or set seckill.jwt.jwks-uri)");
                require(adminSecret != null && adminSecret.length() >= 32, "seckill.jwt.admin-secret",
                        "must be at least 32 characters (or set seckill.jwt.jwks-uri)");
                require(!userSecret.equals(adminSecret), "seckill.jwt.admin-secret", "must differ from the user secret");
            } else {
                require(jwksUri.startsWith("http://") || jwksUri.startsWith("https://"), "seckill.jwt.jwks-uri",
                        "must be an http(s) URL");
                require(userSecret == null && adminSecret == null, "seckill.jwt.jwks-uri",
                        "is an alternative to the secrets: set one or the other");
            }
        }

        /** Tokens are verified against an identity provider's key set rather than shared secrets. */
        public boolean identityProvider() {
            return jwksUri != null && !jwksUri.isBlank();
        }

        /** For the tools that mint tokens with shared secrets. */
        public static Jwt secrets(String userSecret, String adminSecret) {
            return new Jwt(userSecret, adminSecret, null, null, Duration.ofSeconds(30));
        }
    }

    public record Mq(
            @DefaultValue("127.0.0.1:9876") String namesrv,
            @DefaultValue("SECKILL_ORDER_REQUEST") String orderRequestTopic,
            @DefaultValue("SECKILL_ORDER_EVENT") String orderEventTopic,
            @DefaultValue("seckill-order-consumer") String orderConsumerGroup,
            @DefaultValue("seckill-projection") String projectionGroup,
            @DefaultValue("16") int maxReconsumeTimes,
            @DefaultValue("3s") Duration sendTimeout) {
        public Mq {
            require(namesrv != null && !namesrv.isBlank(), "seckill.mq.namesrv", "is required");
            require(maxReconsumeTimes >= 1 && maxReconsumeTimes <= 32, "seckill.mq.max-reconsume-times", "must be 1..32");
            require(sendTimeout.toMillis() >= 100, "seckill.mq.send-timeout", "must be at least 100ms");
        }
    }

    public record Reservation(
            @DefaultValue("5s") Duration sendGrace,
            @DefaultValue("2000") int maxInFlightSends,
            @DefaultValue("24h") Duration requestMapTtl,
            @DefaultValue("2s") Duration projectionStaleAfter,
            @DefaultValue("10s") Duration scanLease,
            @DefaultValue("200") int scanBatch,
            @DefaultValue("200ms") Duration scanInterval,
            @DefaultValue("64") int sendBatch,
            @DefaultValue("32") int sendBatchesInFlight) {
        public Reservation {
            require(sendBatch >= 1 && sendBatch <= 1000, "seckill.reservation.send-batch", "must be 1..1000");
            require(sendBatchesInFlight >= 1, "seckill.reservation.send-batches-in-flight", "must be positive");
            require(sendGrace.toMillis() >= 100, "seckill.reservation.send-grace", "must be at least 100ms");
            require(maxInFlightSends >= 1, "seckill.reservation.max-in-flight-sends", "must be positive");
            require(requestMapTtl.toMinutes() >= 1, "seckill.reservation.request-map-ttl", "must be at least 1m");
            require(scanLease.toMillis() >= 500, "seckill.reservation.scan-lease", "must be at least 500ms");
            require(scanBatch >= 1 && scanBatch <= 5000, "seckill.reservation.scan-batch", "must be 1..5000");
        }
    }

    /** Batch size 1 is the per-message mode (one transaction per order). */
    public record OrderConsumer(
            @DefaultValue("50") int batchSize,
            @DefaultValue("4") int threads) {
        public OrderConsumer {
            require(batchSize >= 1 && batchSize <= 1024, "seckill.order-consumer.batch-size", "must be 1..1024");
            require(threads >= 1 && threads <= 64, "seckill.order-consumer.threads", "must be 1..64");
        }
    }

    public record Outbox(
            @DefaultValue("200") int batchSize,
            @DefaultValue("30s") Duration lease,
            @DefaultValue("500ms") Duration baseBackoff,
            @DefaultValue("30s") Duration maxBackoff,
            @DefaultValue("24h") Duration retention,
            @DefaultValue("50ms") Duration idlePoll) {
        public Outbox {
            require(batchSize >= 1 && batchSize <= 5000, "seckill.outbox.batch-size", "must be 1..5000");
            require(lease.toSeconds() >= 1, "seckill.outbox.lease", "must be at least 1s");
            require(!baseBackoff.isNegative() && baseBackoff.compareTo(maxBackoff) <= 0, "seckill.outbox.base-backoff",
                    "must be between 0 and max-backoff");
        }

        public Backoff backoff() {
            return new Backoff(baseBackoff, maxBackoff);
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
            require(interval.toMillis() >= 100, "seckill.payment.statement.interval", "must be at least 100ms");
            require(!delay.isNegative(), "seckill.payment.statement.delay", "must not be negative");
            require(lookback.compareTo(delay) > 0, "seckill.payment.statement.lookback",
                    "must be longer than the delay (" + delay + ")");
            require(rereadEvery.compareTo(interval) >= 0, "seckill.payment.statement.reread-every",
                    "must be at least the interval (" + interval + ")");
        }
    }

    /**
     * The entry breaker ({@code maxUnsentAge}: pause admission when reservations stop reaching the
     * broker); {@code maxPerSecond}: reservation requests one instance admits per second (0 = no
     * limit); {@code maxPerUserPerSecond}: the same for one buyer. Above either, 429.
     * {@code entryPort}: the port of the lean admission entry, which serves only the reserve call
     * (-1: off; 0: any free port); {@code entryThreads}: the threads that answer it.
     */
    public record Admission(@DefaultValue("15s") Duration maxUnsentAge, @DefaultValue("0") int maxPerSecond,
            @DefaultValue("10") int maxPerUserPerSecond, @DefaultValue("-1") int entryPort,
            @DefaultValue("32") int entryThreads, @DefaultValue EntryLimits entryLimits) {
        public Admission {
            require(entryPort >= -1 && entryPort <= 65535, "seckill.admission.entry-port", "must be -1 (off), 0 (any) or a port");
            require(entryThreads >= 1 && entryThreads <= 1024, "seckill.admission.entry-threads", "must be 1..1024");
            require(maxPerUserPerSecond >= 0, "seckill.admission.max-per-user-per-second", "must be 0 (no limit) or positive");
            require(maxUnsentAge.toMillis() >= 1000, "seckill.admission.max-unsent-age", "must be at least 1s");
            require(maxPerSecond >= 0, "seckill.admission.max-per-second", "must be 0 (no limit) or positive");
        }
    }

    /**
     * What one client may hold of the admission entry ({@code seckill.admission.entry-limits.*}): open
     * connections over {@code maxConnections} are closed at once; a request must arrive whole within
     * {@code requestTimeout} of its first byte (a client trickling bytes is closed); a connection with
     * {@code maxPipelined} calls unanswered is not read further until answers go out.
     */
    public record EntryLimits(@DefaultValue("10000") int maxConnections, @DefaultValue("10s") Duration requestTimeout,
            @DefaultValue("16") int maxPipelined) {
        public EntryLimits {
            require(maxConnections >= 1, "seckill.admission.entry-limits.max-connections", "must be at least 1");
            require(requestTimeout.toMillis() >= 100, "seckill.admission.entry-limits.request-timeout",
                    "must be at least 100ms");
            require(maxPipelined >= 1 && maxPipelined <= 1024, "seckill.admission.entry-limits.max-pipelined",
                    "must be 1..1024");
        }
    }

    /**
     * Design 11.3 point 6: time-driven rejection pauses while the order topic's oldest unconsumed
     * message is older than this (a backed-up broker makes reservations look expired).
     */
    public record Deadline(@DefaultValue("30s") Duration pauseWhenBacklogOlderThan) {
        public Deadline {
            require(pauseWhenBacklogOlderThan.toMillis() >= 500, "seckill.deadline.pause-when-backlog-older-than",
                    "must be at least 500ms");
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
            @DefaultValue Statement statement) {
        public Payment {
            require("paysim".equals(provider), "seckill.payment.provider", "unknown provider '" + provider + "', known: [paysim]");
            require(channelUrl != null && channelUrl.startsWith("http"), "seckill.payment.channel-url", "must be an http(s) URL");
            require(callbackSecret == null || callbackSecret.length() >= 32, "seckill.payment.callback-secret",
                    "must be at least 32 characters");
            require(callbackWindow.toSeconds() >= 1, "seckill.payment.callback-window", "must be at least 1s");
            require(notifyUrl == null || notifyUrl.startsWith("http"), "seckill.payment.notify-url", "must be an http(s) URL");
            require(channelTimeout.toMillis() >= 100, "seckill.payment.channel-timeout", "must be at least 100ms");
            require(lease.compareTo(channelTimeout.multipliedBy(3)) >= 0, "seckill.payment.lease",
                    "must be at least three channel timeouts (" + channelTimeout.multipliedBy(3) + ")");
            require(batch >= 1 && batch <= 5000, "seckill.payment.batch", "must be 1..5000");
            require(!baseBackoff.isNegative() && baseBackoff.compareTo(maxBackoff) <= 0, "seckill.payment.base-backoff",
                    "must be between 0 and max-backoff");
        }

        public Backoff backoff() {
            return new Backoff(baseBackoff, maxBackoff);
        }
    }

    /**
     * Reconciliation (DESIGN.md §10.6): only data last changed more than {@code watermark} ago is judged
     * (longer than a transaction, the outbox delay and the projection delay together, plus margin).
     * Periodic runs judge what changed since the last run; every {@code fullPassEvery} each SKU is
     * judged whole once more (Redis-side drift leaves no trace in PostgreSQL's change times).
     */
    public record Reconcile(
            @DefaultValue("2m") Duration watermark,
            @DefaultValue("30s") Duration interval,
            @DefaultValue("5m") Duration lease,
            @DefaultValue("10m") Duration fullPassEvery) {
        public Reconcile {
            require(fullPassEvery.toSeconds() >= 1, "seckill.reconcile.full-pass-every", "must be at least 1s");
            require(watermark.toMillis() >= 1000, "seckill.reconcile.watermark", "must be at least 1s");
            require(interval.toMillis() >= 1000, "seckill.reconcile.interval", "must be at least 1s");
            require(lease.compareTo(interval) >= 0, "seckill.reconcile.lease", "must be at least the interval");
        }
    }

    static void require(boolean ok, String property, String message) {
        if (!ok) {
            throw new IllegalArgumentException(property + ": " + message);
        }
    }
}
