package io.seckill.db;

import java.util.Map;
import org.flywaydb.core.api.output.MigrateResult;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The schema's migrations alone, as {@code seckill migrate} runs them: the same configuration an instance reads
 * (config/application.yml, the environment, arguments), a context of nothing but the data source and Flyway, no
 * role started. Run once before a rollout when the instances start with {@code seckill.migrate-at-start=false}.
 * Not a {@code @Configuration}: the application's component scan must not take its beans.
 */
@ImportAutoConfiguration({DataSourceAutoConfiguration.class, FlywayAutoConfiguration.class})
@Import(MigrationConnection.class)
public class Migrations {

    /** What one run did: the migrations it applied and the schema's version after it. */
    public record Outcome(int applied, String version) {}

    private volatile MigrateResult result;

    /** Migrates the database {@code args} (Spring arguments, {@code --name=value}) configure. */
    public static Outcome run(String[] args) {
        SpringApplication app = new SpringApplication(Migrations.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        app.setDefaultProperties(Map.of("spring.flyway.enabled", true));
        try (ConfigurableApplicationContext context = app.run(args)) {
            MigrateResult r = context.getBean(Migrations.class).result;
            return new Outcome(
                    r.migrationsExecuted,
                    r.targetSchemaVersion != null ? r.targetSchemaVersion : r.initialSchemaVersion);
        }
    }

    @Bean
    FlywayMigrationStrategy migrateAndKeep() {
        return flyway -> result = flyway.migrate();
    }
}
