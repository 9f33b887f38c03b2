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

class UnreachableTest {

    @Test
    @DisplayName("a database that cannot be reached is told apart from a statement that failed on one that answers")
    void toldApart() {
        assertThat(Unreachable.is(new CannotCreateTransactionException("no connection",
                new SQLTransientConnectionException("pool timed out")))).isTrue();
        assertThat(Unreachable.is(new UncategorizedSQLException("insert", "INSERT ...", new SQLException("I/O error", "08006"))))
                .as("connection lost mid-statement").isTrue();
        assertThat(Unreachable.is(new UncategorizedSQLException("insert", "INSERT ...",
                new SQLException("terminating connection due to administrator command", "57P01")))).as("server shutting down").isTrue();
        TransactionSystemException rollbackFailed = new TransactionSystemException("JDBC rollback failed",
                new SQLException("Connection is closed"));
        rollbackFailed.initApplicationException(new UncategorizedSQLException("x", "x", new SQLException("I/O error", "08006")));
        assertThat(Unreachable.is(rollbackFailed)).as("the rollback's failure hides the lost connection").isTrue();

        assertThat(Unreachable.is(new DataIntegrityViolationException("duplicate key", new SQLException("dup", "23505"))))
                .isFalse();
        assertThat(Unreachable.is(new UncategorizedSQLException("x", "x", new SQLException("canceling statement", "57014"))))
                .as("a statement timeout: the server answered").isFalse();
        assertThat(Unreachable.is(new TransactionSystemException("commit failed"))).isFalse();
        assertThat(Unreachable.is(new IllegalStateException("bug"))).isFalse();
    }
}
