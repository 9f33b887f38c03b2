package io.seckill.engines;

import io.seckill.cli.SaleClient;
import io.seckill.cli.Secrets;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The application ({@code serve}) as a child process on given engines, so a failpoint's {@code crash}
 * or {@link #kill()} is a real process halt (no shutdown hooks, in-memory state gone) and recovery is a
 * real restart on the same port with the same configuration.
 */
public final class AppProcess implements AutoCloseable {

    private final Map<String, String> properties;
    private final int port;
    private final int managementPort;
    private final int entryPort;
    private final int adminPort;
    private final Path log;
    private final Path serverJar;
    private Process process;
    private int starts;

    /** The application from this JVM's class path (the tests' way). */
    public AppProcess(Map<String, String> properties, Path logDir) throws IOException {
        this(properties, logDir, null);
    }

    /** The application from {@code serverJar} (the product's executable jar), or from this JVM's class path when null. */
    public AppProcess(Map<String, String> properties, Path logDir, Path serverJar) throws IOException {
        this.properties = properties;
        this.serverJar = serverJar;
        try (ServerSocket s = new ServerSocket(0);
                ServerSocket m = new ServerSocket(0);
                ServerSocket e = new ServerSocket(0);
                ServerSocket a = new ServerSocket(0)) {
            this.port = s.getLocalPort();
            this.managementPort = m.getLocalPort();
            this.entryPort = e.getLocalPort();
            this.adminPort = a.getLocalPort();
        }
        Files.createDirectories(logDir);
        this.log = logDir.resolve("app-" + port + ".log");
    }

    /** The server's executable jar: {@code -Dseckill.server.jar}, else {@code server/target} next to the working dir. */
    public static Path locateServerJar() {
        String configured = System.getProperty("seckill.server.jar");
        List<Path> candidates = configured != null
                ? List.of(Path.of(configured))
                : List.of(
                        Path.of("server/target/seckill-server-exec.jar"),
                        Path.of("../server/target/seckill-server-exec.jar"));
        for (Path p : candidates) {
            if (Files.isRegularFile(p)) {
                return p.toAbsolutePath().normalize();
            }
        }
        throw new IllegalStateException(
                "the server jar is not built: none of " + candidates + " (run ./seckill build)");
    }

    public int port() {
        return port;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** The admission entry (the reserve call), on a port of its own. */
    public String entryUrl() {
        return "http://127.0.0.1:" + entryPort;
    }

    /** The operator's listener: the admin API and the dashboard. */
    public String adminUrl() {
        return "http://127.0.0.1:" + adminPort;
    }

    /** A client of this instance: the API, with reserve calls to the admission entry, operator calls to theirs. */
    public SaleClient client() {
        return new SaleClient(url(), entryUrl(), adminUrl());
    }

    /** As {@link #client()}, with the reserve calls on the API port (Tomcat) too. */
    public SaleClient apiClient() {
        return new SaleClient(url(), url(), adminUrl());
    }

    /** Health, metrics and Prometheus: the management port, apart from the buyers'. */
    public String managementUrl() {
        return "http://127.0.0.1:" + managementPort;
    }

    public int starts() {
        return starts;
    }

    /** Starts the process and waits until its health answers. */
    public void start() throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx768m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Drocketmq.client.logUseSlf4j=true");
        if (serverJar != null) {
            cmd.add("-jar");
            cmd.add(serverJar.toString());
        } else {
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.add("io.seckill.cli.SeckillCli");
        }
        cmd.add("serve");
        cmd.add("--server.port=" + port);
        cmd.add("--server.address=127.0.0.1");
        cmd.add("--management.server.port=" + managementPort);
        cmd.add("--seckill.admission.entry-port=" + entryPort);
        cmd.add("--seckill.admin.port=" + adminPort);
        Map<String, String> secrets = new HashMap<>();
        properties.forEach((k, v) -> {
            // secrets go in the environment, as a deployment gives them: serve refuses them as arguments
            if (Secrets.isSecret(k)) {
                secrets.put(Secrets.environmentVariable(k), v);
            } else {
                cmd.add("--" + k + "=" + v);
            }
        });
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(secrets);
        process = pb.start();
        starts++;
        SaleClient probe = new SaleClient(managementUrl());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "child app exited with " + process.exitValue() + " while starting; see " + log);
            }
            try {
                if (probe.get("/actuator/health", null).status() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        throw new IllegalStateException("child app did not answer within 120 s; see " + log);
    }

    /** The running process's id. */
    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process != null && process.isAlive();
    }

    /** Waits for the process to end on its own (a crash), returning its exit code, or -1 if it is still alive. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    /** A crash: SIGKILL, waited for. */
    public void kill() throws InterruptedException {
        if (alive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    public File log() {
        return log.toFile();
    }

    @Override
    public void close() throws InterruptedException {
        if (alive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
