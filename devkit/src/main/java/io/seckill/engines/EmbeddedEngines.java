package io.seckill.engines;

import io.seckill.mq.MqClients;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.remoting.RPCHook;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.RedisServer;

/**
 * Real PostgreSQL (zonky, PG 17), real Redis 7 (org.signal) and a real RocketMQ NameServer +
 * Broker (child JVM) on loopback. Started once per JVM by the tests, and by {@code demo}/{@code bench}.
 */
public final class EmbeddedEngines implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedEngines.class);

    private final Path home;
    private final EmbeddedPostgres postgres;
    private final RedisServer redis;
    private final int redisPort;
    /** The process {@link #pauseRedis()} stopped; 0 when none is. */
    private volatile long pausedRedisPid;

    private final BrokerProcess broker;
    /** The one user the broker accepts, or null when it asks clients for no credentials. */
    private final BrokerUser brokerUser;

    /** The user a broker started with access control accepts ({@code seckill.mq.access-key}, {@code secret-key}). */
    public record BrokerUser(String accessKey, String secretKey) {
        @Override
        public String toString() {
            return "BrokerUser[accessKey=" + accessKey + ", secretKey=(set)]";
        }
    }

    private EmbeddedEngines(
            Path home,
            EmbeddedPostgres postgres,
            RedisServer redis,
            int redisPort,
            BrokerProcess broker,
            BrokerUser brokerUser) {
        this.home = home;
        this.postgres = postgres;
        this.redis = redis;
        this.redisPort = redisPort;
        this.broker = broker;
        this.brokerUser = brokerUser;
    }

    /**
     * @param durable fsync and synchronous_commit on, WAL compressed (demo and benchmarks); off for tests
     */
    public static EmbeddedEngines start(boolean durable) throws IOException {
        return start(durable, () -> {});
    }

    /**
     * @param durable fsync and synchronous_commit on, WAL compressed (demo and benchmarks); off for tests
     * @param beforeStopOnExit run when the JVM exits, before the engines stop: whatever still uses them
     *        closes first, while they answer (a client closing against a stopped engine waits out its timeouts)
     */
    public static EmbeddedEngines start(boolean durable, Runnable beforeStopOnExit) throws IOException {
        return start(durable, beforeStopOnExit, null);
    }

    /**
     * @param durable fsync and synchronous_commit on, WAL compressed (demo and benchmarks); off for tests
     * @param beforeStopOnExit run when the JVM exits, before the engines stop
     * @param brokerUser a broker with access control that accepts only this user (RocketMQ ACL 2.0), or null for a
     *        broker that asks for no credentials; {@link #springProperties()} carries the user to the application
     */
    public static EmbeddedEngines start(boolean durable, Runnable beforeStopOnExit, BrokerUser brokerUser)
            throws IOException {
        Path home = Files.createTempDirectory("seckill-engines-");
        long t0 = System.nanoTime();
        BrokerProcess broker = new BrokerProcess(
                home.resolve("rocketmq"), BrokerProcess.locateBrokerHome(), BrokerProcess.SHORT_DELAY_LEVELS);
        if (brokerUser != null) {
            broker.requiringCredentials(brokerUser.accessKey(), brokerUser.secretKey());
        }
        Files.createDirectories(home.resolve("rocketmq"));
        broker.startAsync();
        EmbeddedPostgres.Builder pg = EmbeddedPostgres.builder()
                .setDataDirectory(home.resolve("pgdata"))
                .setCleanDataDirectory(true)
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("max_connections", "300")
                .setServerConfig("shared_buffers", "256MB");
        if (durable) {
            // as deploy/k8s/backing/postgres.yaml runs it: a page's first change after a checkpoint is written whole
            // to the WAL, compressed
            pg.setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("wal_compression", "on");
        }
        String slowMs = System.getenv("SECKILL_PG_LOG_SLOWER_THAN_MS");
        if (slowMs != null) {
            pg.setServerConfig("log_min_duration_statement", slowMs);
        }
        if (System.getenv("SECKILL_PG_STAT_STATEMENTS") != null) {
            pg.setServerConfig("shared_preload_libraries", "pg_stat_statements")
                    .setServerConfig("pg_stat_statements.track", "all");
        }
        EmbeddedPostgres postgres = pg.start();
        int redisPort = freePort();
        Path redisDir = Files.createDirectories(home.resolve("redis"));
        RedisServer redis = RedisServer.builder()
                .port(redisPort)
                .bind("127.0.0.1")
                .setting("dir " + redisDir)
                .setting("save \"\"")
                .setting("appendonly no")
                .setting("maxmemory 1gb")
                .build();
        redis.start();
        broker.awaitStarted();
        log.info(
                "engines up in {} ms: postgres :{}, redis :{}, rocketmq {}{}",
                (System.nanoTime() - t0) / 1_000_000,
                postgres.getPort(),
                redisPort,
                broker.namesrvAddress(),
                brokerUser == null ? "" : " (access control, user " + brokerUser.accessKey() + ")");
        EmbeddedEngines engines = new EmbeddedEngines(home, postgres, redis, redisPort, broker, brokerUser);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                beforeStopOnExit.run();
                            } finally {
                                engines.closeOnExit();
                            }
                        },
                        "engines-shutdown"));
        return engines;
    }

    private void closeOnExit() {
        try {
            close();
        } catch (Exception e) {
            System.err.println("stopping embedded engines: " + e);
        }
    }

    public String jdbcUrl() {
        return postgres.getJdbcUrl("postgres", "postgres");
    }

    public int postgresPort() {
        return postgres.getPort();
    }

    public String redisUri() {
        return "redis://127.0.0.1:" + redisPort;
    }

    public int redisPort() {
        return redisPort;
    }

    public String namesrvAddress() {
        return broker.namesrvAddress();
    }

    /**
     * Stops Redis the way an operator's restart does: its data saved to its directory first, so the
     * next {@link #startRedis()} loads it (a stop, not a data loss; the data-loss drill is elsewhere).
     */
    public void stopRedis() throws IOException {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redisUri());
        try (var c = client.connect()) {
            c.sync().save();
        } finally {
            client.shutdown();
        }
        redis.stop();
    }

    public void startRedis() throws IOException {
        redis.start();
    }

    /**
     * Stops the Redis process without closing anything (SIGSTOP), as a hung server or a network
     * partition does: connections stay open and no command is answered until {@link #resumeRedis()}.
     */
    public void pauseRedis() throws IOException, InterruptedException {
        pausedRedisPid = RedisSignals.pid(redisUri());
        RedisSignals.stop(pausedRedisPid);
    }

    /** Lets the Redis process {@link #pauseRedis()} stopped run again (SIGCONT). */
    public void resumeRedis() throws IOException, InterruptedException {
        if (pausedRedisPid <= 0) {
            throw new IllegalStateException("Redis is not paused");
        }
        RedisSignals.resume(pausedRedisPid);
        pausedRedisPid = 0;
    }

    /**
     * Stops PostgreSQL as an outage does - a fast shutdown: sessions cut, new connections refused - and
     * keeps its data directory for {@link #startPostgres()}.
     */
    public void stopPostgres() throws IOException, InterruptedException {
        pgCtl("stop", "-m", "fast");
    }

    /** Starts PostgreSQL again on the same data directory, port and settings it was started with. */
    public void startPostgres() throws IOException, InterruptedException {
        List<String> opts = postmasterOptions();
        List<String> rest = new ArrayList<>();
        for (int i = 1; i < opts.size(); i++) {
            if (opts.get(i).equals("-D")) {
                i++;
            } else {
                rest.add(opts.get(i));
            }
        }
        pgCtl(
                "start",
                "-o",
                String.join(" ", rest),
                "-l",
                home.resolve("pg-restart.log").toString());
    }

    /** The command line the server was last started with, as {@code pg_ctl} recorded it: binary first. */
    private List<String> postmasterOptions() throws IOException {
        String recorded = Files.readString(home.resolve("pgdata").resolve("postmaster.opts"));
        List<String> out = new ArrayList<>();
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("\"([^\"]*)\"|(\\S+)").matcher(recorded.trim());
        while (m.find()) {
            out.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return out;
    }

    private void pgCtl(String... args) throws IOException, InterruptedException {
        Path pgCtl = Path.of(postmasterOptions().getFirst()).resolveSibling("pg_ctl");
        List<String> cmd = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            // PostgreSQL refuses to run as root; as zonky does for the first start, a user namespace makes it someone
            // else
            cmd.addAll(List.of("unshare", "-U"));
        }
        cmd.addAll(List.of(pgCtl.toString(), "-D", home.resolve("pgdata").toString(), "-w", "-t", "60"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!p.waitFor(90, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("pg_ctl " + String.join(" ", args) + " failed: " + out.trim());
        }
    }

    /** The user the broker accepts, or null when it asks for no credentials. */
    public BrokerUser brokerUser() {
        return brokerUser;
    }

    /** What a client of this broker signs its requests with ({@link MqClients#credentials}), or null. */
    public RPCHook brokerSignature() {
        return brokerUser == null ? null : MqClients.credentials(brokerUser.accessKey(), brokerUser.secretKey());
    }

    public BrokerProcess broker() {
        return broker;
    }

    public Path home() {
        return home;
    }

    /** Spring properties that point the application at these engines. */
    public Map<String, String> springProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("spring.datasource.url", jdbcUrl());
        p.put("spring.datasource.username", "postgres");
        p.put("spring.datasource.password", "postgres");
        p.put("seckill.redis-uri", redisUri());
        p.put("seckill.mq.namesrv", namesrvAddress());
        if (brokerUser != null) {
            p.put("seckill.mq.access-key", brokerUser.accessKey());
            p.put("seckill.mq.secret-key", brokerUser.secretKey());
        }
        return p;
    }

    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    @Override
    public void close() throws Exception {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            broker.close();
        } finally {
            try {
                redis.stop();
            } finally {
                postgres.close();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
