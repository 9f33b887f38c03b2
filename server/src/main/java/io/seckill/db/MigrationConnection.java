package io.seckill.db;

import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.stereotype.Component;

/**
 * Flyway migrates on a connection of its own, from {@code spring.datasource.url} alone: the pool's
 * statement, idle-transaction and socket timeouts (application.yml) bound a buyer's and a worker's
 * statements, and would cut short a migration that builds an index on a large table. Timeouts written
 * into the URL itself apply here too.
 */
@Component
class MigrationConnection implements FlywayConfigurationCustomizer {

    private final DataSourceProperties datasource;

    MigrationConnection(DataSourceProperties datasource) {
        this.datasource = datasource;
    }

    @Override
    public void customize(FluentConfiguration configuration) {
        configuration.dataSource(
                datasource.determineUrl(), datasource.determineUsername(), datasource.determinePassword());
    }
}
