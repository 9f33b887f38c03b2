package io.seckill.db;

import java.util.function.Supplier;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.stereotype.Component;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.retry.FailFast;

/**
 * PostgreSQL reads on a buyer's request fail fast while PostgreSQL does not answer ({@link FailFast}).
 *
 * <p>With PostgreSQL stopped or hung, each read waits for a pool connection (five seconds) or for its
 * statement, holding a request thread; the reserve call itself needs only Redis, and must not find the
 * port's threads all waiting on status polls. The refusal is {@link NotAnswering}, a
 * {@link DataAccessResourceFailureException}: the status query answers from Redis what Redis holds, and
 * the web layer answers the rest {@code 503}. Metrics: {@code postgres_breaker_open},
 * {@code postgres_breaker_refused_total}.
 */
@Component
public class DbBreaker {

    private final FailFast calls;

    public DbBreaker(MeterRegistry meters) {
        this.calls = new FailFast("postgres", e -> e instanceof DataAccessResourceFailureException
                || e instanceof QueryTimeoutException || e instanceof TransientDataAccessResourceException,
                NotAnswering::new, meters);
    }

    /** The read's result; {@link NotAnswering} at once while PostgreSQL is judged not to answer. */
    public <T> T call(Supplier<T> read) {
        return calls.call(read);
    }

    /** Refused without asking PostgreSQL: it has not been answering. */
    public static final class NotAnswering extends DataAccessResourceFailureException {
        private static final long serialVersionUID = 1L;

        NotAnswering() {
            super("PostgreSQL is not answering; reads are refused for a second before it is tried again");
        }
    }
}
