package io.seckill.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.test.context.TestPropertySource;

/**
 * The application with limits small enough for one test client to reach them, on both ports: the
 * admission entry's connections, request time and pipelining, the API port's slow bodies, and the
 * status lookups' PostgreSQL budget. The classes that carry it share one application context.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@TestPropertySource(
        properties = {
            "seckill.admission.entry-limits.max-connections=4",
            "seckill.admission.entry-limits.max-connections-per-address=3",
            "seckill.admission.entry-limits.first-byte-timeout=2s",
            "seckill.admission.entry-limits.request-timeout=1s",
            "seckill.admission.entry-limits.max-pipelined=4",
            "seckill.api.max-slow-bodies=4",
            "seckill.reservation.status-db-reads-per-second=5"
        })
public @interface SmallLimits {}
