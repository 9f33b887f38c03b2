package io.seckill.engines;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.RedisServer;

/**
 * A Redis Cluster on loopback from the embedded Redis binary: {@code masters} masters sharing the 16384
 * slots evenly, each with {@code replicasPerMaster} replicas, joined with CLUSTER MEET and waited on
 * until {@code cluster_state:ok} everywhere. A master can be stopped and its replica promoted
 * (CLUSTER FAILOVER TAKEOVER), as an operator or Sentinel-less failover would.
 */
public final class RedisClusterNodes implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisClusterNodes.class);
    private static final int SLOTS = 16384;

    /** One node: its port, and the master it was started to replicate (-1 for a master; roles change on failover). */
    public record Node(int port, int masterPort, RedisServer server) {
        public String uri() {
            return "redis://127.0.0.1:" + port;
        }
    }

    private final List<Node> nodes;

    private RedisClusterNodes(List<Node> nodes) {
        this.nodes = nodes;
    }

    public static RedisClusterNodes start(Path dir, int masters, int replicasPerMaster) throws Exception {
        return start(dir, masters, replicasPerMaster, 256);
    }

    /** As {@link #start(Path, int, int)}, each node allowed {@code maxMemoryMb} of data. */
    public static RedisClusterNodes start(Path dir, int masters, int replicasPerMaster, int maxMemoryMb)
            throws Exception {
        List<Node> nodes = new ArrayList<>();
        try {
            for (int m = 0; m < masters; m++) {
                nodes.add(node(dir, -1, maxMemoryMb));
            }
            for (int m = 0; m < masters; m++) {
                for (int r = 0; r < replicasPerMaster; r++) {
                    nodes.add(node(dir, nodes.get(m).port(), maxMemoryMb));
                }
            }
            RedisClusterNodes cluster = new RedisClusterNodes(nodes);
            cluster.join(masters);
            return cluster;
        } catch (Exception e) {
            nodes.forEach(RedisClusterNodes::stopQuietly);
            throw e;
        }
    }

    /**
     * A node on a free port whose cluster bus port (the port + 10000) is free too; a start that loses either port to
     * another process between the check and the bind is tried again on another.
     */
    private static Node node(Path dir, int masterPort, int maxMemoryMb) throws IOException {
        RuntimeException lost = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = freePortWithBus();
            Path nodeDir = Files.createDirectories(dir.resolve("redis-" + port));
            RedisServer server = RedisServer.builder()
                    .port(port)
                    .bind("127.0.0.1")
                    .setting("dir " + nodeDir)
                    .setting("cluster-enabled yes")
                    .setting("cluster-config-file nodes-" + port + ".conf")
                    .setting("cluster-node-timeout 2000")
                    // the masters that are up serve their slots while another's are failed over (docs/DEPLOYMENT.md)
                    .setting("cluster-require-full-coverage no")
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .setting("maxmemory " + maxMemoryMb + "mb")
                    .build();
            try {
                server.start();
                return new Node(port, masterPort, server);
            } catch (RuntimeException e) {
                lost = e;
                stopQuietly(new Node(port, masterPort, server));
            }
        }
        throw lost;
    }

    private static int freePortWithBus() throws IOException {
        while (true) {
            try (ServerSocket s = new ServerSocket(0)) {
                int port = s.getLocalPort();
                if (port + 10_000 > 65_535) {
                    continue;
                }
                try (ServerSocket bus = new ServerSocket(port + 10_000)) {
                    return port;
                } catch (IOException taken) {
                    // the bus port is someone's: another port
                }
            }
        }
    }

    private void join(int masters) throws InterruptedException {
        int per = SLOTS / masters;
        for (int m = 0; m < masters; m++) {
            int from = m * per;
            int to = m == masters - 1 ? SLOTS - 1 : from + per - 1;
            run(nodes.get(m).port(), c -> c.clusterAddSlotsRange(io.lettuce.core.Range.create(from, to)));
        }
        for (Node n : nodes.subList(1, nodes.size())) {
            run(nodes.getFirst().port(), c -> c.clusterMeet("127.0.0.1", n.port()));
        }
        awaitState(
                "every node sees every other",
                () -> nodes.stream()
                        .allMatch(
                                n -> run(n.port(), c -> c.clusterNodes().lines().count()) == nodes.size()));
        for (Node n : nodes) {
            if (n.masterPort() > 0) {
                String masterId = run(n.masterPort(), RedisCommands::clusterMyId);
                run(n.port(), c -> c.clusterReplicate(masterId));
            }
        }
        awaitState(
                "cluster_state:ok on every node",
                () -> nodes.stream()
                        .allMatch(n -> run(n.port(), c -> c.clusterInfo().contains("cluster_state:ok"))));
        // a replica that has not finished its first sync cannot take over yet
        awaitState(
                "every replica in sync",
                () -> nodes.stream()
                        .filter(n -> n.masterPort() > 0)
                        .allMatch(n -> run(n.port(), c -> c.info("replication")).contains("master_link_status:up")));
        log.info(
                "redis cluster up: {} masters, {} nodes, ports {}",
                masters,
                nodes.size(),
                nodes.stream().map(Node::port).toList());
    }

    public List<Node> nodes() {
        return List.copyOf(nodes);
    }

    /** Waits until every node reports {@code cluster_state:ok} (after a node was busy past the node timeout). */
    public void awaitHealthy() throws InterruptedException {
        awaitState(
                "cluster_state:ok on every node",
                () -> nodes.stream()
                        .allMatch(n -> run(n.port(), c -> c.clusterInfo().contains("cluster_state:ok"))));
    }

    public List<Node> masters() {
        return nodes.stream().filter(n -> isMaster(n.port())).toList();
    }

    /** The seed list an application is configured with ({@code seckill.redis-cluster}). */
    public String seeds() {
        return String.join(",", nodes.stream().map(Node::uri).toList());
    }

    /** One node's figures now: role, keys held and commands processed since it started; "down" when it does not answer. */
    public String figures(Node n) {
        try {
            return run(n.port(), c -> {
                String replication = c.info("replication");
                String stats = c.info("stats");
                Matcher commands =
                        Pattern.compile("total_commands_processed:(\\d+)").matcher(stats);
                return (replication.contains("role:master") ? "master" : "replica") + ", " + c.dbsize() + " keys, "
                        + (commands.find() ? commands.group(1) : "?") + " commands";
            });
        } catch (RuntimeException e) {
            return "down";
        }
    }

    /** Whether the node at {@code port} is a master now (roles change on failover). */
    public boolean isMaster(int port) {
        try {
            return run(port, c -> c.info("replication")).contains("role:master");
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Stops the master at {@code port} and promotes one of its replicas (TAKEOVER: no vote needed).
     * Returns the promoted replica's port.
     */
    public int failover(int port) throws InterruptedException {
        int replica = onlineReplicaOf(port)
                .orElseThrow(() -> new IllegalStateException("master :" + port + " has no replica in sync"));
        nodes.stream()
                .filter(n -> n.port() == port)
                .findFirst()
                .orElseThrow()
                .server()
                .stop();
        run(replica, c -> c.clusterFailover(true, true));
        awaitMaster(replica);
        return replica;
    }

    /** The port of the master serving {@code key} now: the one asked, or the one its MOVED answer names. */
    public int ownerOf(String key) {
        int asked = masters().getFirst().port();
        try {
            run(asked, c -> c.exists(key));
            return asked;
        } catch (io.lettuce.core.RedisCommandExecutionException e) {
            if (e.getMessage() == null || !e.getMessage().startsWith("MOVED")) {
                throw e;
            }
            return Integer.parseInt(e.getMessage()
                    .substring(e.getMessage().lastIndexOf(':') + 1)
                    .trim());
        }
    }

    /** The port of a replica of the master at {@code port} that is in sync with it now, if it has one. */
    public java.util.OptionalInt onlineReplicaOf(int port) {
        Matcher m = Pattern.compile("(?m)^slave\\d+:ip=[^,]+,port=(\\d+),state=online")
                .matcher(run(port, c -> c.info("replication")));
        return m.find() ? java.util.OptionalInt.of(Integer.parseInt(m.group(1))) : java.util.OptionalInt.empty();
    }

    /**
     * Stops the node at {@code port} without closing anything (SIGSTOP): its connections stay open and
     * nothing is answered, as a hung master or one behind a partition. The other nodes fail it over after
     * the node timeout. Returns its process id for {@link #resume(long)}.
     */
    public long hang(int port) throws IOException, InterruptedException {
        long pid = RedisSignals.pid("redis://127.0.0.1:" + port);
        RedisSignals.stop(pid);
        return pid;
    }

    /**
     * Whether the replicas of the master at {@code port} may take over from it ({@code cluster-replica-no-failover}):
     * a master frozen while they may not stays the master of its slots, which wait for it, as one without a replica.
     */
    public void failoverAllowed(int port, boolean allowed) {
        for (Node n : nodes) {
            if (n.masterPort() == port) {
                run(n.port(), c -> c.configSet("cluster-replica-no-failover", allowed ? "no" : "yes"));
            }
        }
    }

    /** Lets a node {@link #hang(int)} stopped run again (SIGCONT). */
    public void resume(long pid) throws IOException, InterruptedException {
        RedisSignals.resume(pid);
    }

    /** Waits until the node at {@code port} is a master. */
    public void awaitMaster(int port) throws InterruptedException {
        awaitState("node :" + port + " a master", () -> isMaster(port));
    }

    /** Waits until the node at {@code port} is a replica and every node still running reports {@code cluster_state:ok}. */
    public void awaitRejoined(int port) throws InterruptedException {
        awaitState(
                "node :" + port + " a replica, cluster_state:ok on every running node",
                () -> !isMaster(port)
                        && nodes.stream()
                                .filter(n -> n.server().isActive())
                                .allMatch(
                                        n -> run(n.port(), c -> c.clusterInfo().contains("cluster_state:ok"))));
    }

    private static <T> T run(int port, java.util.function.Function<RedisCommands<String, String>, T> f) {
        RedisClient client = RedisClient.create(RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(port)
                .withTimeout(Duration.ofSeconds(5))
                .build());
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            return f.apply(c.sync());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    private static void awaitState(String what, java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try {
                if (done.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException e) {
                log.debug("redis cluster: not yet {}: {}", what, e.getMessage());
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new IllegalStateException("redis cluster: not " + what + " within 30 s");
    }

    private static void stopQuietly(Node n) {
        try {
            n.server().stop();
        } catch (RuntimeException e) {
            log.warn("redis cluster: stopping :{} failed: {}", n.port(), e.getMessage());
        }
    }

    @Override
    public void close() {
        nodes.forEach(RedisClusterNodes::stopQuietly);
    }
}
