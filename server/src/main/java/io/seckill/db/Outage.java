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
 * A failure that says PostgreSQL as a whole is out of service, as opposed to a statement that failed on a
 * database that serves it. Either kind is nobody's input's fault and passes with time (or with an
 * operator); neither is a reason to give up on the work that met it.
 */
public enum Outage {

    /** No connection to be had, the connection lost, the server shutting down or starting up. */
    UNREACHABLE,
    /**
     * The server answers but writes nothing: a read-only transaction (a standby still behind the address
     * after a failover, or a primary its platform turned read-only as the disk filled), out of disk, out of
     * memory, or a write that does not finish within the statement timeout. A query that only reads
     * succeeds, so only a write tells when it is over.
     */
    NOT_WRITING;

    /** PostgreSQL's codes for a server that is going away or not ready: admin/crash shutdown, cannot connect now. */
    private static final Set<String> SERVER_GOING = Set.of("57P01", "57P02", "57P03");
    /**
     * read_only_sql_transaction, disk_full, out_of_memory; query_canceled: a statement past its
     * statement_timeout (waiting on a lock a lost session holds until the server ends that session, or on a
     * server too slow to finish it) or cancelled by an operator.
     */
    private static final Set<String> WRITES_REFUSED = Set.of("25006", "53100", "53200", "57014");

    /** The failure a lost connection raises (SQLSTATE 08006), for a drill that stages one. */
    public static SQLException lostConnection(String message) {
        return new SQLNonTransientConnectionException(message, "08006");
    }

    /** The outage {@code failure} says PostgreSQL is in, or null when it failed on a database that serves. */
    public static Outage of(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof CannotCreateTransactionException
                    || t instanceof CannotGetJdbcConnectionException
                    || t instanceof SQLTransientConnectionException
                    || t instanceof SQLNonTransientConnectionException
                    || t instanceof ConnectException) {
                return UNREACHABLE;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.startsWith("08") || SERVER_GOING.contains(state)) {
                    return UNREACHABLE;
                }
                if (WRITES_REFUSED.contains(state)) {
                    return NOT_WRITING;
                }
            }
            // a rollback that failed on the lost connection hides the failure that lost it
            if (t instanceof TransactionSystemException tse
                    && tse.getApplicationException() != null
                    && tse.getApplicationException() != failure) {
                Outage hidden = of(tse.getApplicationException());
                if (hidden != null) {
                    return hidden;
                }
            }
        }
        return null;
    }
}
