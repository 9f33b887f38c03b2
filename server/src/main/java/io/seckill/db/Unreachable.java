package io.seckill.db;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

/**
 * Whether a failure says PostgreSQL cannot be reached at all - no connection to be had, the
 * connection lost, the server shutting down or starting up - as opposed to a statement that failed
 * on a database that answers. The first is nobody's input's fault and passes with time.
 */
public final class Unreachable {

    /** PostgreSQL's codes for a server that is going away or not ready: admin/crash shutdown, cannot connect now. */
    private static final Set<String> SERVER_GOING = Set.of("57P01", "57P02", "57P03");

    private Unreachable() {
    }

    /** The failure a lost connection raises (SQLSTATE 08006), for a drill that stages one. */
    public static SQLException lostConnection(String message) {
        return new SQLNonTransientConnectionException(message, "08006");
    }

    public static boolean is(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof CannotCreateTransactionException || t instanceof CannotGetJdbcConnectionException
                    || t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
                    || t instanceof ConnectException) {
                return true;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || SERVER_GOING.contains(sql.getSQLState()))) {
                return true;
            }
            // a rollback that failed on the lost connection hides the failure that lost it
            if (t instanceof TransactionSystemException tse && tse.getApplicationException() != null
                    && tse.getApplicationException() != failure && is(tse.getApplicationException())) {
                return true;
            }
        }
        return false;
    }
}
