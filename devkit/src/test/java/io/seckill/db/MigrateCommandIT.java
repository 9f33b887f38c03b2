package io.seckill.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.seckill.cli.Secrets;
import io.seckill.engines.AppProcess;
import io.seckill.support.TestChildApps;
import io.seckill.support.TestEngines;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Migrations as a fleet runs them: {@code seckill migrate} (the server jar, as the Kubernetes Job runs it) brings an
 * empty database to this version's schema and a second run applies nothing; an instance started with
 * {@code seckill.migrate-at-start=false} accepts exactly that schema and refuses to start on any other.
 */
class MigrateCommandIT {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    /** The two databases and the server jar's two runs on them, started together: each run is a JVM's start-up. */
    private static String migrated;

    private static String refused;
    private static CompletableFuture<Run> migrate;
    private static CompletableFuture<Run> serve;

    @BeforeAll
    static void runTheJarTwice() throws SQLException {
        migrated = freshDatabase();
        refused = freshDatabase();
        // a thread each: the common pool has one thread on two cores
        Executor ownThread =
                run -> Thread.ofPlatform().name("server-jar").daemon().start(run);
        migrate = CompletableFuture.supplyAsync(() -> jar(migrated, "migrate"), ownThread);
        serve = CompletableFuture.supplyAsync(
                () -> jar(refused, "serve", "--seckill.migrate-at-start=false", "--seckill.roles=api"), ownThread);
    }

    @Test
    @DisplayName("seckill migrate applies every migration to an empty database, then nothing; the schema history "
            + "holds each file of db/migration once")
    void migrateThenNothing() throws Exception {
        String url = migrated;
        Run first = migrate.join();
        int files = migrationFiles();
        assertThat(first.exit()).as(first.output()).isZero();
        assertThat(first.output()).contains("applied " + files + " migration(s); schema at version " + files);
        Migrations.Outcome second = Migrations.run(new String[] {
            "--spring.datasource.url=" + url,
            "--spring.datasource.username=postgres",
            "--spring.datasource.password=postgres"
        });
        assertThat(second).isEqualTo(new Migrations.Outcome(0, String.valueOf(files)));
        try (Connection c = connect(url);
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(
                        "SELECT count(*), count(DISTINCT version), bool_and(success) FROM flyway_schema_history")) {
            r.next();
            assertThat(r.getInt(1)).isEqualTo(files);
            assertThat(r.getInt(2)).isEqualTo(files);
            assertThat(r.getBoolean(3)).isTrue();
        }
        new MigrationsAtStart(false).migrate(flyway(url));
    }

    @Test
    @DisplayName("with seckill.migrate-at-start=false an instance refuses an unmigrated database, naming `seckill "
            + "migrate`, and writes nothing to it")
    void validateOnlyRefusesAnOldSchema() throws Exception {
        String url = refused;
        assertThatThrownBy(() -> new MigrationsAtStart(false).migrate(flyway(url)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("run `seckill migrate` (the migrations Job) first");
        Run serve = MigrateCommandIT.serve.join();
        assertThat(serve.exit()).as("serve exits").isNotZero();
        assertThat(serve.output()).contains("run `seckill migrate` (the migrations Job) first");
        try (Connection c = connect(url);
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")) {
            r.next();
            assertThat(r.getInt(1)).as("tables in the refused database").isZero();
        }
    }

    private record Run(int exit, String output) {}

    /** The server jar run with {@code args}, configured through the environment as a pod is. */
    private static Run jar(String url, String... args) {
        try {
            return runJar(url, args);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running the server jar", e);
        }
    }

    private static Run runJar(String url, String... args) throws IOException, InterruptedException {
        Path log = Files.createTempFile("migrate-it", ".log");
        ProcessBuilder pb = new ProcessBuilder(Stream.concat(
                        Stream.of(
                                ProcessHandle.current().info().command().orElse("java"),
                                "-Xmx256m",
                                "-jar",
                                AppProcess.locateServerJar().toString()),
                        Stream.of(args))
                .toList());
        Map<String, String> env = pb.environment();
        TestChildApps.properties("migrate").forEach((k, v) -> env.put(Secrets.environmentVariable(k), v));
        env.put("SPRING_DATASOURCE_URL", url);
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the server jar did not exit within 120 s: " + Files.readString(log));
        }
        return new Run(p.exitValue(), Files.readString(log));
    }

    private static String freshDatabase() throws SQLException {
        String name = "migrate_it_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        try (Connection c = connect(TestEngines.get().jdbcUrl());
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return "jdbc:postgresql://127.0.0.1:" + TestEngines.get().postgresPort() + "/" + name;
    }

    private static Flyway flyway(String url) {
        return Flyway.configure()
                .dataSource(url, "postgres", "postgres")
                .locations("classpath:db/migration")
                .load();
    }

    private static Connection connect(String url) throws SQLException {
        return DriverManager.getConnection(url, "postgres", "postgres");
    }

    private static int migrationFiles() throws IOException {
        Path dir = Path.of("../server/src/main/resources/db/migration");
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> sql = files.filter(f -> f.getFileName().toString().matches("V\\d+__.*\\.sql"))
                    .toList();
            return sql.size();
        }
    }
}
