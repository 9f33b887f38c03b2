package io.seckill.support;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.seckill.cli.SaleClient;

/**
 * The application as a child process on the test's engines, so a failpoint's {@code crash} is a
 * real process halt (no shutdown hooks, in-memory state gone) and recovery is a real restart on
 * the same port with the same configuration.
 */
public final class ChildApp implements AutoCloseable {

    private final Map<String, String> properties;
    private final int port;
    private final int managementPort;
    private final Path log;
    private Process process;
    private int starts;

    public ChildApp(Map<String, String> properties, Path logDir) throws IOException {
        this.properties = properties;
        try (ServerSocket s = new ServerSocket(0); ServerSocket m = new ServerSocket(0)) {
            this.port = s.getLocalPort();
            this.managementPort = m.getLocalPort();
        }
        Files.createDirectories(logDir);
        this.log = logDir.resolve("child-app-" + port + ".log");
    }

    /**
     * What a child instance needs to run beside the tests: the test engines, the tests' token secrets
     * (so {@link IntegrationTest}'s tokens are accepted), its own id key and the payment simulator.
     */
    public static Map<String, String> testProperties(String name) {
        Map<String, String> p = new LinkedHashMap<>(TestEngines.get().springProperties());
        p.put("seckill.jwt.user-secret", IntegrationTest.USER_SECRET);
        p.put("seckill.jwt.admin-secret", IntegrationTest.ADMIN_SECRET);
        p.put("seckill.ids.keys.1", name + "-id-key-v1-0123456789abcdef0123456789");
        p.put("seckill.payment.channel-url", TestPaySim.get().url());
        p.put("seckill.payment.callback-secret", TestPaySim.SECRET);
        return p;
    }

    public int port() {
        return port;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
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
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("io.seckill.cli.SeckillCli");
        cmd.add("serve");
        cmd.add("--server.port=" + port);
        cmd.add("--server.address=127.0.0.1");
        cmd.add("--management.server.port=" + managementPort);
        properties.forEach((k, v) -> cmd.add("--" + k + "=" + v));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        process = pb.start();
        starts++;
        SaleClient probe = new SaleClient(managementUrl());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("child app exited with " + process.exitValue() + " while starting; see " + log);
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

    public boolean alive() {
        return process != null && process.isAlive();
    }

    /** Waits for the process to end on its own (a crash), returning its exit code, or -1 if it is still alive. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
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
