package io.seckill.engines;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real RocketMQ NameServer + Broker running in a child JVM with its own classpath (the broker
 * module's jars, on Netty 4.1). Ports and store survive {@link #kill()} and {@link #start()}, so a
 * test can crash the broker with SIGKILL and bring it back on the same store.
 */
public final class BrokerProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BrokerProcess.class);
    /** Eighteen 1-second delay levels: redelivery after a failed consume comes within about a second. */
    public static final String SHORT_DELAY_LEVELS = String.join(" ", java.util.Collections.nCopies(18, "1s"));

    private final Path home;
    private final Path brokerHome;
    private final int namesrvPort;
    private final int brokerPort;
    private final String delayLevels;
    /** For a broker that joins another process's NameServer: its name and that NameServer; else null. */
    private final String brokerName;

    private final String externalNamesrv;
    /** The address clients are told to connect to, when not the loopback address the broker listens on. */
    private String advertised;
    /** {@code user:password} of the one user the broker accepts (RocketMQ ACL 2.0), or null: every client accepted. */
    private String credentials;

    private Process process;
    private CompletableFuture<String> ready;

    /** A NameServer and the broker {@code seckill-broker-a}, in one child JVM. */
    public BrokerProcess(Path home, Path brokerHome, String delayLevels) throws IOException {
        this(home, brokerHome, delayLevels, freePort(false), null, null);
    }

    private BrokerProcess(
            Path home, Path brokerHome, String delayLevels, int namesrvPort, String brokerName, String externalNamesrv)
            throws IOException {
        this.home = home;
        this.brokerHome = brokerHome;
        this.delayLevels = delayLevels;
        this.namesrvPort = namesrvPort;
        this.brokerPort = freePort(true);
        this.brokerName = brokerName;
        this.externalNamesrv = externalNamesrv;
        Files.createDirectories(home);
    }

    /** Another broker of the same cluster, named {@code brokerName}, registering with {@code namesrv}: a child JVM of its own. */
    public static BrokerProcess joining(
            Path home, Path brokerHome, String delayLevels, String brokerName, String namesrv) throws IOException {
        return new BrokerProcess(home, brokerHome, delayLevels, 0, brokerName, namesrv);
    }

    /**
     * Has the broker tell clients to connect to {@code ip} (another loopback address, such as 127.0.0.2)
     * at its port, while it listens on 127.0.0.1: a relay listening there stands between the clients and
     * the broker. Before {@link #start()}.
     */
    public synchronized BrokerProcess advertising(String ip) {
        this.advertised = ip;
        return this;
    }

    /**
     * Has the broker authenticate and authorize every client (RocketMQ ACL 2.0): only {@code user} with
     * {@code password}, a super user, is accepted. Given to the child in its environment, never its command line.
     * Before {@link #start()}.
     */
    public synchronized BrokerProcess requiringCredentials(String user, String password) {
        this.credentials = user + ":" + password;
        return this;
    }

    /** The port the broker listens on (and advertises). */
    public int brokerPort() {
        return brokerPort;
    }

    public String namesrvAddress() {
        return externalNamesrv != null ? externalNamesrv : "127.0.0.1:" + namesrvPort;
    }

    /** Starts the child JVM and waits until the NameServer lists the broker. */
    public synchronized void start() throws IOException {
        startAsync();
        awaitStarted();
    }

    /** Starts the child JVM; {@link #awaitStarted()} waits for it, so other engines can start meanwhile. */
    public synchronized void startAsync() throws IOException {
        if (process != null && process.isAlive()) {
            return;
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-Xms256m",
                "-Xmx512m",
                "-XX:+UseSerialGC",
                "-Duser.home=" + home,
                "-Dseckill.broker.advertise=" + (advertised == null ? "127.0.0.1" : advertised),
                "-Drmq.logback.configurationFile=" + brokerHome.resolve("classes/rmq.logback.xml"),
                "-cp",
                brokerHome.resolve("seckill-broker.jar") + File.pathSeparator + brokerHome.resolve("lib")
                        + File.separator + "*",
                "io.seckill.broker.EmbeddedBrokerMain",
                home.resolve("store").toString(),
                Integer.toString(namesrvPort),
                Integer.toString(brokerPort),
                delayLevels));
        if (brokerName != null) {
            cmd.addAll(List.of(brokerName, externalNamesrv));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectError(home.resolve("broker-stderr.log").toFile());
        if (credentials != null) {
            pb.environment().put("SECKILL_BROKER_ACL", credentials);
        }
        Process started = pb.start();
        process = started;
        ready = CompletableFuture.supplyAsync(() -> awaitReady(started));
    }

    public void awaitStarted() throws IOException {
        CompletableFuture<String> pending;
        Process p;
        synchronized (this) {
            pending = ready;
            p = process;
        }
        try {
            String line = pending.get(90, TimeUnit.SECONDS);
            log.info("RocketMQ broker up: {} (pid {})", line, p.pid());
        } catch (Exception e) {
            p.destroyForcibly();
            throw new IOException("embedded RocketMQ did not start; see " + home.resolve("broker-stderr.log"), e);
        }
    }

    private static String awaitReady(Process p) {
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("READY ")) {
                    Thread drain = new Thread(() -> drain(out), "broker-stdout");
                    drain.setDaemon(true);
                    drain.start();
                    return line;
                }
            }
            throw new IllegalStateException("broker exited with " + p.waitFor() + " before READY");
        } catch (IOException e) {
            throw new IllegalStateException("reading broker output", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void drain(BufferedReader out) {
        try {
            while (out.readLine() != null) {
                // the broker logs to its own files; stdout carries only the READY line
            }
        } catch (IOException e) {
            log.debug("broker stdout closed: {}", e.toString());
        }
    }

    /** A real crash: SIGKILL, no shutdown hooks, the store left as it was. */
    public synchronized void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** The broker JVM's process id, or -1 when it does not run. */
    public synchronized long pid() {
        return process != null && process.isAlive() ? process.pid() : -1;
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    @Override
    public synchronized void close() throws InterruptedException {
        kill();
    }

    /** A free loopback port; for the broker also {@code port - 2}, which it binds for its VIP channel. */
    private static int freePort(boolean alsoMinusTwo) throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            if (!alsoMinusTwo || portFree(port - 2)) {
                return port;
            }
        }
        throw new IOException("no free port pair found");
    }

    private static boolean portFree(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort() == port;
        } catch (IOException e) {
            return false;
        }
    }

    /** Where the broker module's build output lives: {@code -Dseckill.broker.home}, else next to the working dir. */
    public static Path locateBrokerHome() {
        String configured = System.getProperty("seckill.broker.home");
        List<Path> candidates = configured != null
                ? List.of(Path.of(configured))
                : List.of(Path.of("broker/target"), Path.of("../broker/target"));
        for (Path p : candidates) {
            if (Files.isRegularFile(p.resolve("seckill-broker.jar")) && Files.isDirectory(p.resolve("lib"))) {
                return p.toAbsolutePath().normalize();
            }
        }
        throw new IllegalStateException("embedded RocketMQ not built: no seckill-broker.jar and lib/ in " + candidates
                + " (run ./seckill build, or set -Dseckill.broker.home)");
    }
}
