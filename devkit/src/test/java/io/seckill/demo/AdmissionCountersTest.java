package io.seckill.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class AdmissionCountersTest {

    @Test
    @DisplayName(
            "an instance's Prometheus page gives its breaker and Redis refusals and breaker trips of every cause; other "
                    + "series are ignored")
    void parsesPrometheus() {
        String page = """
                # HELP reservation_refused_total
                # TYPE reservation_refused_total counter
                reservation_refused_total{application="seckill",reason="admission_paused"} 3.0
                reservation_refused_total{application="seckill",reason="redis_unavailable"} 12.0
                reservation_refused_total{application="seckill",reason="rate_limited"} 40.0
                admission_trips_total{application="seckill",cause="send"} 2.0
                admission_trips_total{application="seckill",cause="order_backlog"} 1.0
                reservation_admitted_total{application="seckill"} 900.0
                """;
        assertThat(AdmissionCounters.parse(page)).isEqualTo(new AdmissionCounters(3, 12, 3));
        assertThat(AdmissionCounters.parse("")).isEqualTo(AdmissionCounters.NONE);
    }

    @Test
    @DisplayName(
            "counters of this JVM's registry, summed with others and taken since a snapshot (a restart counts from zero)")
    void registrySumAndSince() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        meters.counter("reservation.refused", "reason", "admission_paused").increment(2);
        meters.counter("reservation.refused", "reason", "redis_unavailable").increment(5);
        meters.counter("admission.trips", "cause", "send").increment();
        meters.counter("admission.trips", "cause", "order_backlog").increment(2);
        AdmissionCounters now = AdmissionCounters.of(meters);
        assertThat(now).isEqualTo(new AdmissionCounters(2, 5, 3));
        assertThat(now.plus(new AdmissionCounters(1, 1, 1))).isEqualTo(new AdmissionCounters(3, 6, 4));
        assertThat(now.since(new AdmissionCounters(1, 9, 0))).isEqualTo(new AdmissionCounters(1, 0, 3));
    }
}
