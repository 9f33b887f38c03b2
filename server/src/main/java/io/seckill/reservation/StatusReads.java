package io.seckill.reservation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.config.SeckillProperties;
import io.seckill.db.DbBreaker;
import io.seckill.metrics.LogThrottle;
import io.seckill.ratelimit.PerSecondLimit;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

/**
 * The status query's PostgreSQL reads: at most {@code seckill.reservation.status-db-reads-per-second}
 * a second on this instance ({@code reservation_status_db_reads_total{result}}), and refused at once
 * while PostgreSQL does not answer ({@link DbBreaker}).
 */
@Component
class StatusReads {

    private static final Logger log = LoggerFactory.getLogger(StatusReads.class);

    /** What PostgreSQL said of a read; {@code answered} is false when it did not answer (its value then empty). */
    record Pg<T>(boolean answered, Optional<T> value) {
        /** PostgreSQL answered that there is none. */
        boolean none() {
            return answered && value.isEmpty();
        }
    }

    private final PerSecondLimit budget;
    private final DbBreaker breaker;
    private final Counter read;
    private final Counter skipped;
    private final LogThrottle failures = new LogThrottle(Duration.ofSeconds(1));

    StatusReads(SeckillProperties props, DbBreaker breaker, MeterRegistry meters) {
        this.budget = new PerSecondLimit(
                "seckill.reservation.status-db-reads-per-second",
                props.reservation().statusDbReadsPerSecond());
        this.breaker = breaker;
        this.read = counted(meters, "read");
        this.skipped = counted(meters, "skipped");
    }

    private static Counter counted(MeterRegistry meters, String result) {
        return Counter.builder("reservation.status.db_reads")
                .description("PostgreSQL lookups of a buyer's reservation status: read, or skipped past "
                        + "seckill.reservation.status-db-reads-per-second (answered from Redis, or 503 BUSY)")
                .tag("result", result)
                .register(meters);
    }

    /** One permit of the budget, counted either way. */
    boolean permit() {
        if (budget.tryAcquire()) {
            read.increment();
            return true;
        }
        skipped.increment();
        return false;
    }

    /** The read, or that PostgreSQL did not answer it (refused by its breaker, no connection, timed out). */
    <T> Pg<T> read(Supplier<Optional<T>> lookup, UUID reservationId) {
        try {
            return new Pg<>(true, breaker.call(lookup));
        } catch (DataAccessException e) {
            if (!DbBreaker.noAnswer(e)) {
                throw e;
            }
            long suppressed = failures.tryAcquire();
            if (suppressed >= 0) {
                log.warn(
                        "reservation.query_db_failed reservation_id={} error_class={} suppressed_since_last={}",
                        reservationId,
                        e.getClass().getName(),
                        suppressed);
            }
            return new Pg<>(false, Optional.empty());
        }
    }
}
