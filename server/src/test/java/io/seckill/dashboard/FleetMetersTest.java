package io.seckill.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class FleetMetersTest {

    @Test
    @DisplayName(
            "an instance's totals read its counters as the page names them: a counter, one tag of it, or all its tags")
    void totalsByTheirShownNames() {
        MeterRegistry meters = new SimpleMeterRegistry();
        meters.counter("reservation.admitted").increment(7);
        meters.counter("order.consume", "result", "created").increment(5);
        meters.counter("order.consume", "result", "rejected_sold_out").increment(2);
        meters.counter("reservation.refused", "reason", "SOLD_OUT").increment(30);
        meters.counter("reservation.refused", "reason", "RATE_LIMITED").increment(4);
        FleetMeters.Snapshot s = new FleetMeters(null, meters, "api", Duration.ofSeconds(2), System::nanoTime).local();
        assertThat(s.totals())
                .containsEntry("admitted", 7.0)
                .containsEntry("orders created", 5.0)
                .containsEntry("rejected: sold out", 2.0)
                .containsEntry("refused at the entry", 34.0)
                .containsEntry("paid", 0.0);
        assertThat(s.totals().keySet()).containsExactlyElementsOf(FleetMeters.SHOWN.keySet());
        assertThat(s.rates().values()).as("one reading: no rate yet").containsOnly(0.0);
    }

    @Test
    @DisplayName("an instance's rates are its own counters' growth between its readings, never negative")
    void ratesFromOwnReadings() {
        MeterRegistry meters = new SimpleMeterRegistry();
        Counter created = meters.counter("order.consume", "result", "created");
        AtomicLong nanos = new AtomicLong();
        FleetMeters fleet = new FleetMeters(null, meters, "order-consumer", Duration.ofSeconds(2), nanos::get);
        fleet.local();
        created.increment(10);
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        FleetMeters.Snapshot s = fleet.local();
        assertThat(s.rates()).containsEntry("orders created", 5.0).containsEntry("admitted", 0.0);
        // readings older than the window no longer count: 10 more over the last 10 s
        nanos.addAndGet(Duration.ofSeconds(12).toNanos());
        fleet.local();
        created.increment(10);
        nanos.addAndGet(Duration.ofSeconds(10).toNanos());
        assertThat(fleet.local().rates()).containsEntry("orders created", 1.0);
        // a counter that went back (cannot happen within one process) never reads as a negative rate
        assertThat(fleet.local().rates().values()).allMatch(r -> r >= 0);
    }

    @Test
    @DisplayName("the fleet adds up what each instance wrote: numbers sum, counters split by tag merge tag by tag")
    void instancesAddUp() {
        MeterRegistry api = new SimpleMeterRegistry();
        api.counter("reservation.admitted").increment(100);
        api.counter("reservation.refused", "reason", "SOLD_OUT").increment(9);
        MeterRegistry worker = new SimpleMeterRegistry();
        worker.counter("order.consume", "result", "created").increment(60);
        worker.counter("reservation.refused", "reason", "SOLD_OUT").increment(1);
        Map<String, Object> counters = new LinkedHashMap<>();
        Map<String, Object> totals = new LinkedHashMap<>();
        for (MeterRegistry m : new MeterRegistry[] {api, worker}) {
            FleetMeters.Snapshot written =
                    new FleetMeters(null, m, "x", Duration.ofSeconds(2), System::nanoTime).local();
            FleetMeters.Snapshot read = FleetMeters.Snapshot.parse(written.json());
            assertThat(read.totals()).isEqualTo(written.totals());
            FleetMeters.add(counters, read.counters());
            FleetMeters.add(totals, read.totals());
        }
        assertThat(totals)
                .containsEntry("admitted", 100.0)
                .containsEntry("orders created", 60.0)
                .containsEntry("refused at the entry", 10.0);
        assertThat(counters.get("refused")).isEqualTo(Map.of("SOLD_OUT", 10.0));
        assertThat(FleetMeters.totals(counters)).isEqualTo(totals);
    }
}
