package io.seckill.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.seckill.support.IntegrationTest;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** The pool's limits on a PostgreSQL that stops answering (application.yml; PostgresPartitionIT shows them at work). */
class PoolTimeoutsIT extends IntegrationTest {

    @Autowired
    DataSource dataSource;

    @Autowired
    Flyway flyway;

    @Test
    @DisplayName(
            "every pooled session has a statement and an idle-in-transaction timeout, and the driver a socket timeout")
    void sessionsAreBounded() {
        assertThat(jdbc.queryForObject("SHOW statement_timeout", String.class)).isEqualTo("20s");
        assertThat(jdbc.queryForObject("SHOW idle_in_transaction_session_timeout", String.class))
                .isEqualTo("30s");
        assertThat(((HikariDataSource) dataSource).getDataSourceProperties())
                .containsEntry("socketTimeout", "30")
                .containsEntry("tcpKeepAlive", "true");
    }

    @Test
    @DisplayName(
            "Flyway migrates on a connection of its own, without the pool's timeouts that would cut a long migration short")
    void migrationsAreNotBounded() throws Exception {
        DataSource migrations = flyway.getConfiguration().getDataSource();
        assertThat(migrations).isNotSameAs(dataSource).isNotInstanceOf(HikariDataSource.class);
        try (var c = migrations.getConnection();
                var st = c.createStatement();
                var rs = st.executeQuery("SHOW statement_timeout")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("0");
        }
    }
}
