package io.seckill.db;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.ValidateResult;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.stereotype.Component;

/**
 * What an instance does with the schema as it starts. By default it migrates (one instance at a time, under
 * Flyway's session lock): a single process, the demo and the tests need nothing else. With
 * {@code seckill.migrate-at-start=false} - a fleet whose migrations run once, as a Job before the rollout
 * ({@code seckill migrate}) - it only checks that the database holds exactly this version's migrations and
 * refuses to start otherwise, naming what differs: an instance never runs against a schema it was not built for.
 */
@Component
class MigrationsAtStart implements FlywayMigrationStrategy {

    private final boolean migrate;

    MigrationsAtStart(@Value("${seckill.migrate-at-start:true}") boolean migrate) {
        this.migrate = migrate;
    }

    @Override
    public void migrate(Flyway flyway) {
        if (migrate) {
            flyway.migrate();
            return;
        }
        ValidateResult result = flyway.validateWithResult();
        if (!result.validationSuccessful) {
            throw new IllegalStateException("seckill.migrate-at-start=false and the database's schema is not this "
                    + "version's: run `seckill migrate` (the migrations Job) first. Flyway: "
                    + result.getAllErrorMessages());
        }
    }
}
