package io.seckill.db;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.retry.FailFast;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.stereotype.Component;

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
public class DbBreaker extends FailFast {

    public DbBreaker(MeterRegistry meters) {
        super("postgres", DbBreaker::noAnswer, NotAnswering::new, meters);
    }

    /** PostgreSQL did not answer: no connection, a statement timed out, a resource failing for now. */
    public static boolean noAnswer(Throwable e) {
        return e instanceof DataAccessResourceFailureException
                || e instanceof QueryTimeoutException
                || e instanceof TransientDataAccessResourceException;
    }

    /** Refused without asking PostgreSQL: it has not been answering. */
    public static final class NotAnswering extends DataAccessResourceFailureException {
        private static final long serialVersionUID = 1L;

        NotAnswering() {
            super("PostgreSQL is not answering; reads are refused for a second before it is tried again");
        }
    }
}
