package io.seckill.demo;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the instances counted at the entry: refusals while the entry breaker held admission, refusals
 * because Redis did not answer (fail closed), and how many times the breaker opened.
 */
record AdmissionCounters(long breakerRefusals, long redisRefusals, long trips) {

    private static final Pattern LINE = Pattern.compile(
            "(?m)^(reservation_refused_total\\{[^}]*reason=\"(\\w+)\"[^}]*}|admission_trips_total(?:\\{[^}]*})?) ([0-9.Ee+-]+)$");

    static final AdmissionCounters NONE = new AdmissionCounters(0, 0, 0);

    /** One instance in this JVM. */
    static AdmissionCounters of(MeterRegistry meters) {
        return new AdmissionCounters(
                count(meters.find("reservation.refused")
                        .tag("reason", "admission_paused")
                        .counter()),
                count(meters.find("reservation.refused")
                        .tag("reason", "redis_unavailable")
                        .counter()),
                (long) meters.find("admission.trips").counters().stream()
                        .mapToDouble(Counter::count)
                        .sum());
    }

    /** One instance's Prometheus page. */
    static AdmissionCounters parse(String prometheus) {
        long breaker = 0;
        long redis = 0;
        long trips = 0;
        Matcher m = LINE.matcher(prometheus);
        while (m.find()) {
            long v = (long) Double.parseDouble(m.group(3));
            if (m.group(2) == null) {
                trips += v;
            } else if (m.group(2).equals("admission_paused")) {
                breaker += v;
            } else if (m.group(2).equals("redis_unavailable")) {
                redis += v;
            }
        }
        return new AdmissionCounters(breaker, redis, trips);
    }

    AdmissionCounters plus(AdmissionCounters o) {
        return new AdmissionCounters(
                breakerRefusals + o.breakerRefusals, redisRefusals + o.redisRefusals, trips + o.trips);
    }

    /** Since {@code before}; an instance restarted meanwhile counts from its restart. */
    AdmissionCounters since(AdmissionCounters before) {
        return new AdmissionCounters(
                Math.max(0, breakerRefusals - before.breakerRefusals),
                Math.max(0, redisRefusals - before.redisRefusals),
                Math.max(0, trips - before.trips));
    }

    private static long count(Counter c) {
        return c == null ? 0 : (long) c.count();
    }
}
