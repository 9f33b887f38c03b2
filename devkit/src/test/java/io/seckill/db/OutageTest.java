package io.seckill.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

class OutageTest {

    @Test
    @DisplayName("a database that cannot be reached, or answers but does not write, is told apart from a statement "
            + "that failed on one that serves")
    void toldApart() {
        assertThat(Outage.of(new CannotCreateTransactionException(
                        "no connection", new SQLTransientConnectionException("pool timed out"))))
                .isEqualTo(Outage.UNREACHABLE);
        assertThat(Outage.of(
                        new UncategorizedSQLException("insert", "INSERT ...", new SQLException("I/O error", "08006"))))
                .as("connection lost mid-statement")
                .isEqualTo(Outage.UNREACHABLE);
        assertThat(Outage.of(new UncategorizedSQLException(
                        "insert",
                        "INSERT ...",
                        new SQLException("terminating connection due to administrator command", "57P01"))))
                .as("server shutting down")
                .isEqualTo(Outage.UNREACHABLE);
        TransactionSystemException rollbackFailed =
                new TransactionSystemException("JDBC rollback failed", new SQLException("Connection is closed"));
        rollbackFailed.initApplicationException(
                new UncategorizedSQLException("x", "x", new SQLException("I/O error", "08006")));
        assertThat(Outage.of(rollbackFailed))
                .as("the rollback's failure hides the lost connection")
                .isEqualTo(Outage.UNREACHABLE);

        assertThat(Outage.of(new UncategorizedSQLException(
                        "insert",
                        "INSERT ...",
                        new SQLException("cannot execute INSERT in a read-only transaction", "25006"))))
                .as("a standby behind the address, or a primary turned read-only")
                .isEqualTo(Outage.NOT_WRITING);
        assertThat(Outage.of(new UncategorizedSQLException(
                        "insert",
                        "INSERT ...",
                        new SQLException("could not extend file: No space left on device", "53100"))))
                .isEqualTo(Outage.NOT_WRITING);

        assertThat(Outage.of(new DataIntegrityViolationException("duplicate key", new SQLException("dup", "23505"))))
                .isNull();
        assertThat(Outage.of(new UncategorizedSQLException(
                        "update",
                        "UPDATE ...",
                        new SQLException("canceling statement due to statement timeout", "57014"))))
                .as("a write past the statement timeout (a lock a lost session holds, a server too slow)")
                .isEqualTo(Outage.NOT_WRITING);
        assertThat(Outage.of(new TransactionSystemException("commit failed"))).isNull();
        assertThat(Outage.of(new IllegalStateException("bug"))).isNull();
    }
}
