package io.seckill.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.seckill.retry.Backoff;
import io.seckill.support.BoundProperties;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

class SeckillPropertiesTest {

    @Test
    @DisplayName("nonsense configuration is refused with a message naming the property")
    void namesTheProperty() {
        assertThatThrownBy(() -> new SeckillProperties.Jwt(
                        "short", "x".repeat(40), null, null, null, null, null, Duration.ofSeconds(30)))
                .hasMessageStartingWith("seckill.jwt.user-secret");
        String s = "s".repeat(40);
        assertThatThrownBy(() -> new SeckillProperties.Jwt(s, s, null, null, null, null, null, Duration.ofSeconds(30)))
                .hasMessageStartingWith("seckill.jwt.admin-secret");
        assertThatThrownBy(() -> bind(Map.of("seckill.mq.access-key", "seckill-engine")))
                .hasStackTraceContaining("seckill.mq.secret-key: is required with seckill.mq.access-key");
        assertThatThrownBy(() -> bind(Map.of("seckill.mq.secret-key", "s3cret")))
                .hasStackTraceContaining("seckill.mq.access-key: is required with seckill.mq.secret-key");
        assertThat(bind(Map.of("seckill.mq.access-key", "a", "seckill.mq.secret-key", "s3cret"))
                        .mq()
                        .toString())
                .as("the secret is never printed")
                .contains("accessKey=a", "secretKey=(set)")
                .doesNotContain("s3cret");
        assertThatThrownBy(() -> new SeckillProperties.Ids(Map.of(1, "too-short")))
                .hasMessageStartingWith("seckill.ids.keys[1]");
        assertThatThrownBy(() -> new SeckillProperties.OrderConsumer(0, 4, Duration.ofHours(1)))
                .hasMessageStartingWith("seckill.order-consumer.batch-size");
        assertThatThrownBy(() -> new SeckillProperties.OrderConsumer(50, 0, Duration.ofHours(1)))
                .hasMessageStartingWith("seckill.order-consumer.threads");
        assertThatThrownBy(() -> new SeckillProperties.Outbox(
                        0,
                        Duration.ofSeconds(30),
                        Duration.ofMillis(500),
                        Duration.ofSeconds(60),
                        Duration.ofHours(24),
                        Duration.ofMillis(50),
                        2))
                .hasMessageStartingWith("seckill.outbox.batch-size");
        assertThatThrownBy(() -> new SeckillProperties.Outbox(
                        200,
                        Duration.ofSeconds(30),
                        Duration.ofMillis(500),
                        Duration.ofSeconds(60),
                        Duration.ofHours(24),
                        Duration.ofMillis(50),
                        0))
                .hasMessageStartingWith("seckill.outbox.threads");
        assertThatThrownBy(() -> new SeckillProperties(
                        java.util.Set.of("api", "cook"),
                        "redis://x",
                        null,
                        new SeckillProperties.Ids(Map.of(1, s)),
                        new SeckillProperties.Jwt(s, s + "x", null, null, null, null, null, Duration.ofSeconds(30)),
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null))
                .hasMessageStartingWith("seckill.roles");
        assertThatThrownBy(() -> payment("short", Duration.ofSeconds(3), Duration.ofSeconds(30)))
                .hasMessageStartingWith("seckill.payment.callback-secret");
        assertThatThrownBy(() -> payment(s, Duration.ofSeconds(3), Duration.ofSeconds(5)))
                .hasMessageStartingWith("seckill.payment.lease");
        assertThat(payment(null, Duration.ofSeconds(3), Duration.ofSeconds(9)).callbackSecret())
                .isNull();
        assertThatThrownBy(() -> new SeckillProperties.Statement(
                        Duration.ofSeconds(60), Duration.ofMinutes(5), Duration.ofMinutes(5), Duration.ofHours(1)))
                .hasMessageStartingWith("seckill.payment.statement.lookback");
        assertThatThrownBy(() -> new SeckillProperties.Statement(
                        Duration.ofMillis(10), Duration.ZERO, Duration.ofHours(1), Duration.ofHours(1)))
                .hasMessageStartingWith("seckill.payment.statement.interval");
        assertThatThrownBy(() -> new SeckillProperties.Statement(
                        Duration.ofSeconds(60), Duration.ZERO, Duration.ofHours(1), Duration.ofSeconds(10)))
                .hasMessageStartingWith("seckill.payment.statement.reread-every");
        assertThatThrownBy(() -> new SeckillProperties.Admission(
                        Duration.ofSeconds(15),
                        -1,
                        10,
                        -1,
                        32,
                        null,
                        Duration.ZERO,
                        Duration.ZERO,
                        Duration.ofMillis(200)))
                .hasMessageStartingWith("seckill.admission.max-per-second");
        assertThatThrownBy(() -> new SeckillProperties.Admission(
                        Duration.ofMillis(10),
                        0,
                        10,
                        -1,
                        32,
                        null,
                        Duration.ZERO,
                        Duration.ZERO,
                        Duration.ofMillis(200)))
                .hasMessageStartingWith("seckill.admission.max-unsent-age");
        assertThatThrownBy(() -> new SeckillProperties.Admission(
                        Duration.ofSeconds(15),
                        0,
                        10,
                        -1,
                        32,
                        null,
                        Duration.ofSeconds(2),
                        Duration.ZERO,
                        Duration.ofMillis(200)))
                .hasMessage("seckill.admission.max-order-backlog-age: must be 0s (off) or at least 5s, got PT2S");
        assertThat(new SeckillProperties.Admission(
                                Duration.ofSeconds(15),
                                0,
                                10,
                                -1,
                                32,
                                null,
                                Duration.ZERO,
                                Duration.ZERO,
                                Duration.ofMillis(200))
                        .maxOrderBacklogAge())
                .as("0 turns the backlog pause off")
                .isZero();
        assertThatThrownBy(() -> new SeckillProperties.Admission(
                        Duration.ofSeconds(15),
                        0,
                        10,
                        -1,
                        32,
                        null,
                        Duration.ofSeconds(20),
                        Duration.ofMillis(500),
                        Duration.ofMillis(200)))
                .hasMessage("seckill.admission.order-wait-target: must be 0s (off) or at least 1s, got PT0.5S");
        assertThatThrownBy(() -> new SeckillProperties.Admission(
                        Duration.ofSeconds(15),
                        0,
                        10,
                        -1,
                        32,
                        null,
                        Duration.ofSeconds(20),
                        Duration.ofSeconds(20),
                        Duration.ofMillis(200)))
                .hasMessage(
                        "seckill.admission.order-wait-target: must be under seckill.admission.max-order-backlog-age "
                                + "(PT20S), got PT20S");
        assertThat(new SeckillProperties.Admission(
                                Duration.ofSeconds(15),
                                0,
                                10,
                                -1,
                                32,
                                null,
                                Duration.ZERO,
                                Duration.ofSeconds(30),
                                Duration.ofMillis(200))
                        .orderWaitTarget())
                .as("any target once the backlog pause is off")
                .hasSeconds(30);
        assertThatThrownBy(() -> entryLimits(0, Duration.ofSeconds(10), 16, Duration.ZERO))
                .hasMessageStartingWith("seckill.admission.entry-limits.max-connections");
        assertThatThrownBy(() -> entryLimits(10, Duration.ofMillis(10), 16, Duration.ZERO))
                .hasMessageStartingWith("seckill.admission.entry-limits.request-timeout");
        assertThatThrownBy(() -> entryLimits(10, Duration.ofSeconds(10), 0, Duration.ZERO))
                .hasMessageStartingWith("seckill.admission.entry-limits.max-pipelined");
        assertThatThrownBy(() -> entryLimits(10, Duration.ofSeconds(10), 16, Duration.ofMillis(1001)))
                .hasMessage("seckill.admission.entry-limits.retry-answer-delay: must be 0s (at once) up to 1s (the "
                        + "Retry-After), got PT1.001S");
        assertThatThrownBy(() -> entryLimits(10, Duration.ofSeconds(10), 16, Duration.ofMillis(-1)))
                .hasMessageStartingWith("seckill.admission.entry-limits.retry-answer-delay");
        assertThat(entryLimits(10, Duration.ofSeconds(10), 16, Duration.ofSeconds(1))
                        .retryAnswerDelay())
                .hasSeconds(1);
    }

    private static SeckillProperties.EntryLimits entryLimits(
            int maxConnections, Duration requestTimeout, int maxPipelined, Duration retryAnswerDelay) {
        return new SeckillProperties.EntryLimits(
                maxConnections, 10, 0, Duration.ofSeconds(5), requestTimeout, maxPipelined, retryAnswerDelay);
    }

    @Test
    @DisplayName(
            "bound from text as a deployment writes it: the refusal names the property, the bound and the value given")
    void boundFromText() {
        assertThat(bind(Map.of()).outbox().backoff())
                .isEqualTo(new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30)));
        assertThat(bind(Map.of("seckill.payment.base-backoff", "2s", "seckill.payment.max-backoff", "2s"))
                        .payment()
                        .backoff())
                .isEqualTo(new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(2)));
        assertThat(bind(Map.of()).reservation().sendLinger()).isEqualTo(Duration.ofMillis(5));
        assertThat(bind(Map.of()).admission().maxOrderBacklogAge()).isEqualTo(Duration.ofSeconds(20));
        assertThat(bind(Map.of()).admission().entryLimits().retryAnswerDelay()).isEqualTo(Duration.ofMillis(100));
        assertThat(bind(Map.of("seckill.admission.entry-limits.retry-answer-delay", "0s"))
                        .admission()
                        .entryLimits()
                        .retryAnswerDelay())
                .isZero();
        assertThat(bind(Map.of("seckill.admission.max-order-backlog-age", "0s"))
                        .admission()
                        .maxOrderBacklogAge())
                .isZero();
        // property, value given, what the refusal says after the property's name
        String[][] refused = {
            {"seckill.outbox.batch-size", "0", "must be 1..5000, got 0"},
            {"seckill.reservation.scan-lease", "100ms", "must be at least 500ms, got PT0.1S"},
            {"seckill.reservation.max-in-flight-sends", "0", "must be at least 1, got 0"},
            {
                "seckill.reservation.send-linger",
                "2s",
                "must be at most 1s (the answer does not wait for it, the order does)"
            },
            {"seckill.payment.base-backoff", "2m", "must not exceed max-backoff (PT1M)"},
            {"seckill.outbox.base-backoff", "-1s", "must be at least 0s, got PT-1S"},
            {"seckill.reconcile.lease", "10s", "must be at least the interval (PT30S)"},
        };
        for (String[] r : refused) {
            assertThat(refusal(Map.of(r[0], r[1]))).isEqualTo(r[0] + ": " + r[2]);
        }
    }

    @Test
    @DisplayName("a landed transfer's marker outlives the reconciler's horizon whatever request-map-ttl is: set to a "
            + "minute, the marker still stays twice the watermark, the interval and the lease")
    void landingMarkersOutliveTheReconcileHorizon() {
        assertThat(bind(Map.of("seckill.reservation.request-map-ttl", "1m")).landingMarkerTtl())
                .isEqualTo(Duration.ofMinutes(2).plusSeconds(30).plusMinutes(5).multipliedBy(2));
        assertThat(bind(Map.of(
                                "seckill.reservation.request-map-ttl",
                                "1m",
                                "seckill.reconcile.watermark",
                                "10m",
                                "seckill.reconcile.lease",
                                "20m"))
                        .landingMarkerTtl())
                .isEqualTo(
                        Duration.ofMinutes(10).plusSeconds(30).plusMinutes(20).multipliedBy(2));
        assertThat(bind(Map.of()).landingMarkerTtl())
                .as("the default request map TTL (24 h) is longer already")
                .isEqualTo(Duration.ofHours(24));
    }

    @Test
    @DisplayName("a worker without the api role starts without JWT secrets (the manifests give it none); an instance "
            + "with the api role and none is refused naming seckill.jwt")
    void onlyTheApiRoleNeedsTokenSecrets() {
        Map<String, String> worker =
                Map.of("seckill.ids.keys.1", "k".repeat(32), "seckill.roles", "order-consumer,outbox-relay");
        assertThat(new Binder(new MapConfigurationPropertySource(worker))
                        .bind("seckill", SeckillProperties.class)
                        .get()
                        .jwt())
                .isNull();
        Throwable refused = catchThrowable(() -> new Binder(new MapConfigurationPropertySource(
                        Map.of("seckill.ids.keys.1", "k".repeat(32), "seckill.roles", "api,order-consumer")))
                .bind("seckill", SeckillProperties.class));
        while (refused.getCause() != null) {
            refused = refused.getCause();
        }
        assertThat(refused.getMessage()).startsWith("seckill.jwt");
    }

    private static SeckillProperties bind(Map<String, String> given) {
        return BoundProperties.bind(given);
    }

    /** The innermost message of a refused binding: what the operator reads at start-up. */
    private static String refusal(Map<String, String> given) {
        Throwable t = catchThrowable(() -> bind(given));
        assertThat(t).as("binding %s", given).isNotNull();
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    private static SeckillProperties.Payment payment(String secret, Duration timeout, Duration lease) {
        return new SeckillProperties.Payment(
                "paysim",
                "http://127.0.0.1:1",
                secret,
                Duration.ofMinutes(5),
                null,
                timeout,
                lease,
                100,
                Duration.ofMillis(500),
                Duration.ofSeconds(1),
                Duration.ofSeconds(60),
                new SeckillProperties.Statement(
                        Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofHours(24), Duration.ofHours(1)));
    }
}
