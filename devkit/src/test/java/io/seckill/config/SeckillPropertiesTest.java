package io.seckill.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SeckillPropertiesTest {

    @Test
    @DisplayName("nonsense configuration is refused with a message naming the property")
    void namesTheProperty() {
        assertThatThrownBy(() -> new SeckillProperties.Jwt("short", "x".repeat(40), null, null, Duration.ofSeconds(30)))
                .hasMessageStartingWith("seckill.jwt.user-secret");
        String s = "s".repeat(40);
        assertThatThrownBy(() -> new SeckillProperties.Jwt(s, s, null, null, Duration.ofSeconds(30))).hasMessageStartingWith("seckill.jwt.admin-secret");
        assertThatThrownBy(() -> new SeckillProperties.Ids(Map.of(1, "too-short")))
                .hasMessageStartingWith("seckill.ids.keys[1]");
        assertThatThrownBy(() -> new SeckillProperties.OrderConsumer(0, 4))
                .hasMessageStartingWith("seckill.order-consumer.batch-size");
        assertThatThrownBy(() -> new SeckillProperties.OrderConsumer(50, 0))
                .hasMessageStartingWith("seckill.order-consumer.threads");
        assertThatThrownBy(() -> new SeckillProperties.Outbox(0, Duration.ofSeconds(30), Duration.ofMillis(500),
                Duration.ofSeconds(60), Duration.ofHours(24), Duration.ofMillis(50)))
                .hasMessageStartingWith("seckill.outbox.batch-size");
        assertThatThrownBy(() -> new SeckillProperties(java.util.Set.of("api", "cook"), "redis://x", null, new SeckillProperties.Ids(
                Map.of(1, s)), new SeckillProperties.Jwt(s, s + "x", null, null, Duration.ofSeconds(30)), null, null, null, null, null, null, null, null))
                .hasMessageStartingWith("seckill.roles");
        assertThatThrownBy(() -> payment("short", Duration.ofSeconds(3), Duration.ofSeconds(30)))
                .hasMessageStartingWith("seckill.payment.callback-secret");
        assertThatThrownBy(() -> payment(s, Duration.ofSeconds(3), Duration.ofSeconds(5)))
                .hasMessageStartingWith("seckill.payment.lease");
        assertThat(payment(null, Duration.ofSeconds(3), Duration.ofSeconds(9)).callbackSecret()).isNull();
        assertThatThrownBy(() -> new SeckillProperties.Statement(Duration.ofSeconds(60), Duration.ofMinutes(5), Duration.ofMinutes(5),
                Duration.ofHours(1)))
                .hasMessageStartingWith("seckill.payment.statement.lookback");
        assertThatThrownBy(() -> new SeckillProperties.Statement(Duration.ofMillis(10), Duration.ZERO, Duration.ofHours(1),
                Duration.ofHours(1)))
                .hasMessageStartingWith("seckill.payment.statement.interval");
        assertThatThrownBy(() -> new SeckillProperties.Statement(Duration.ofSeconds(60), Duration.ZERO, Duration.ofHours(1),
                Duration.ofSeconds(10))).hasMessageStartingWith("seckill.payment.statement.reread-every");
        assertThatThrownBy(() -> new SeckillProperties.Admission(Duration.ofSeconds(15), -1, 10, -1, 32, null))
                .hasMessageStartingWith("seckill.admission.max-per-second");
        assertThatThrownBy(() -> new SeckillProperties.Admission(Duration.ofMillis(10), 0, 10, -1, 32, null))
                .hasMessageStartingWith("seckill.admission.max-unsent-age");
        assertThatThrownBy(() -> new SeckillProperties.EntryLimits(0, Duration.ofSeconds(10), 16))
                .hasMessageStartingWith("seckill.admission.entry-limits.max-connections");
        assertThatThrownBy(() -> new SeckillProperties.EntryLimits(10, Duration.ofMillis(10), 16))
                .hasMessageStartingWith("seckill.admission.entry-limits.request-timeout");
        assertThatThrownBy(() -> new SeckillProperties.EntryLimits(10, Duration.ofSeconds(10), 0))
                .hasMessageStartingWith("seckill.admission.entry-limits.max-pipelined");
    }

    private static SeckillProperties.Payment payment(String secret, Duration timeout, Duration lease) {
        return new SeckillProperties.Payment("paysim", "http://127.0.0.1:1", secret, Duration.ofMinutes(5), null, timeout,
                lease, 100, Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(60),
                new SeckillProperties.Statement(Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofHours(24),
                        Duration.ofHours(1)));
    }
}
