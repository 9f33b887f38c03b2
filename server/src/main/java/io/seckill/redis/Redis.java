package io.seckill.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.protocol.CommandExpiryWriter;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's one Redis connection, standalone or Redis Cluster: only commands that name their keys,
 * each script call within one hash-tagged slot, so both deployments run the same code.
 *
 * @param cluster true on a Redis Cluster
 * @param masters each master's INFO, for what no keyed command tells (memory, evictions)
 * @param nodes which node serves a key, and closing a node's socket, which is then made anew ({@link #reconnect()})
 * @param resources what {@link #close()} releases: the connection, and the client when this owns it
 */
public record Redis(
        RedisClusterCommands<String, String> sync,
        RedisClusterAsyncCommands<String, String> async,
        boolean cluster,
        Masters masters,
        Nodes nodes,
        AutoCloseable resources)
        implements AutoCloseable {

    /** The servers behind the connection, one for a standalone Redis, the masters serving slots on a cluster. */
    public interface Nodes {
        /** The address ({@code host:port}) of the server that serves {@code key} now. */
        String of(String key);

        /** Closes the socket to the server at {@code address}, or every server's when null. */
        void closeSocket(String address);

        /** Asks the cluster which master serves which slots now, without waiting for the answer; nothing standalone. */
        void refresh();

        /**
         * Every key matching {@code pattern}, by SCAN (never KEYS: a server is not blocked for its whole keyspace) on
         * each master that serves slots - not a dead one failed over and still in the node table.
         */
        void scan(String pattern, Consumer<String> each);
    }

    /** The masters of the deployment: the one server of a standalone Redis, every master of a cluster. */
    @FunctionalInterface
    public interface Masters {
        /** A section of each master's INFO, by the master's address. */
        Map<String, String> info(String section);
    }

    private static final Logger log = LoggerFactory.getLogger(Redis.class);

    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
    /** A lost connection is made again after 50 ms, the pause growing (with jitter) to a second. */
    private static final Delay RECONNECT =
            Delay.equalJitter(Duration.ofMillis(50), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS);
    /** Connecting, handshake included, gives up as a command does. */
    private static final SocketOptions SOCKET = SocketOptions.builder()
            .connectTimeout(COMMAND_TIMEOUT)
            .keepAlive(SocketOptions.KeepAliveOptions.builder()
                    .enable()
                    .idle(Duration.ofSeconds(10))
                    .interval(Duration.ofSeconds(5))
                    .count(3)
                    .build())
            .build();

    /**
     * A standalone Redis ({@code redisUri}), or a Redis Cluster from its seed nodes with the topology
     * refreshed periodically and on every redirect or reconnect, so a failover (a replica promoted) is
     * followed within seconds. Commands are never queued while disconnected: admission fails closed
     * rather than waits.
     */
    public static Redis connect(String redisUri, List<String> clusterSeeds) {
        ClientResources resources =
                ClientResources.builder().reconnectDelay(RECONNECT).build();
        if (clusterSeeds.isEmpty()) {
            RedisURI uri = withTimeout(redisUri);
            RedisClient client = RedisClient.create(resources);
            client.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(TimeoutOptions.enabled(COMMAND_TIMEOUT))
                    .socketOptions(SOCKET)
                    .build());
            return standalone(client, uri, resources);
        }
        RedisClusterClient client = RedisClusterClient.create(
                resources, clusterSeeds.stream().map(Redis::withTimeout).toList());
        client.setOptions(ClusterClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(COMMAND_TIMEOUT))
                .socketOptions(SOCKET)
                .maxRedirects(5)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(Duration.ofSeconds(10))
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                        .build())
                .build());
        return cluster(client, resources);
    }

    /**
     * The address with the command timeout as its own. The client waits that long for what it asks on its
     * own account - the handshake of a new connection, and a topology refresh, which waits for every
     * node's answer: with the address's default of 60 s, one hung node kept a cluster's refresh from
     * finding a promoted replica for a minute.
     */
    private static RedisURI withTimeout(String address) {
        RedisURI uri = RedisURI.create(address);
        uri.setTimeout(COMMAND_TIMEOUT);
        return uri;
    }

    /** A connection to a standalone Redis; closing it leaves the client to its owner. */
    public static Redis of(StatefulRedisConnection<String, String> c) {
        return new Redis(c.sync(), c.async(), false, standaloneInfo(c, "redis"), standaloneNodes(c, "redis"), c::close);
    }

    /** A connection to {@code uri} this owns, client and its resources included. */
    private static Redis standalone(RedisClient client, RedisURI uri, ClientResources resources) {
        StatefulRedisConnection<String, String> c = client.connect(RedisText.UTF8, uri);
        String address = uri.getHost() + ":" + uri.getPort();
        return new Redis(c.sync(), c.async(), false, standaloneInfo(c, address), standaloneNodes(c, address), () -> {
            c.close();
            client.shutdown();
            resources.shutdown();
        });
    }

    /** A cluster connection this owns, client and its resources included. */
    private static Redis cluster(RedisClusterClient client, ClientResources resources) {
        StatefulRedisClusterConnection<String, String> c = client.connect(RedisText.UTF8);
        // the masters that serve slots: a master that died and was failed over stays in the node table
        // (flagged fail, no slots) until an operator forgets it, and asking it would fail every call
        Predicate<RedisClusterNode> serving =
                n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM) && !n.getSlots().isEmpty();
        Masters masters = section -> {
            Map<String, String> out = new TreeMap<>();
            c.sync()
                    .nodes(serving)
                    .commands()
                    .info(section)
                    .asMap()
                    .forEach((node, text) -> out.put(address(node), text));
            return out;
        };
        Nodes nodes = new Nodes() {
            @Override
            public String of(String key) {
                RedisClusterNode node = c.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
                return node == null ? "unassigned" : address(node);
            }

            @Override
            public void closeSocket(String address) {
                IllegalStateException failed = null;
                for (RedisClusterNode node : c.getPartitions()) {
                    if (!serving.test(node) || address != null && !address.equals(address(node))) {
                        continue;
                    }
                    try {
                        Redis.closeSocket(c.getConnection(node.getNodeId()));
                    } catch (RedisConnectionException e) {
                        // not connected: no socket to close; Lettuce is already connecting again
                        continue;
                    } catch (RuntimeException e) {
                        // the other nodes' sockets are closed all the same; the caller hears of every failure
                        if (failed == null) {
                            failed = new IllegalStateException("closing the sockets of the cluster's nodes");
                        }
                        failed.addSuppressed(e);
                    }
                }
                if (failed != null) {
                    throw failed;
                }
            }

            @Override
            public void scan(String pattern, Consumer<String> each) {
                for (RedisClusterNode node : c.getPartitions()) {
                    if (serving.test(node)) {
                        ScanIterator.scan(
                                        c.getConnection(node.getNodeId()).sync(),
                                        ScanArgs.Builder.matches(pattern).limit(1000))
                                .forEachRemaining(each);
                    }
                }
            }

            @Override
            public void refresh() {
                client.refreshPartitionsAsync().whenComplete((done, e) -> {
                    if (e != null) {
                        log.warn(
                                "redis.topology_refresh_failed error_class={}: {}",
                                e.getClass().getName(),
                                e.getMessage());
                    }
                });
            }
        };
        return new Redis(c.sync(), c.async(), true, masters, nodes, () -> {
            c.close();
            client.shutdown();
            resources.shutdown();
        });
    }

    /**
     * Closes the connection's sockets; Lettuce connects again at once (commands meanwhile are refused, not
     * queued). A connection whose server vanished without a word - a partition, a failover that left the
     * old address silent - is otherwise kept: each command times out on it, and only the kernel gives up
     * on the socket, after about 15 minutes of retransmissions.
     */
    public void reconnect() {
        nodes.closeSocket(null);
    }

    /** As {@link #reconnect()}, for the connection to the server at {@code address} only. */
    public void reconnect(String address) {
        nodes.closeSocket(address);
    }

    /**
     * On a cluster, asks which master serves which slots now (the answer is applied when it comes): a master
     * that stopped answering may have been replaced by its replica. Lettuce also refreshes every 10 s and on
     * redirects and reconnects, but a master that hangs causes neither.
     */
    public void refreshTopology() {
        nodes.refresh();
    }

    /** The address ({@code host:port}) of the server that serves {@code key} now. */
    public String nodeOf(String key) {
        return nodes.of(key);
    }

    private static String address(RedisClusterNode node) {
        return node.getUri().getHost() + ":" + node.getUri().getPort();
    }

    private static Nodes standaloneNodes(StatefulRedisConnection<String, String> c, String address) {
        return new Nodes() {
            @Override
            public String of(String key) {
                return address;
            }

            @Override
            public void closeSocket(String node) {
                Redis.closeSocket(c);
            }

            @Override
            public void refresh() {
                // one server: nothing moves
            }

            @Override
            public void scan(String pattern, Consumer<String> each) {
                ScanIterator.scan(c.sync(), ScanArgs.Builder.matches(pattern).limit(1000))
                        .forEachRemaining(each);
            }
        };
    }

    private static void closeSocket(StatefulRedisConnection<?, ?> c) {
        RedisChannelWriter writer = ((RedisChannelHandler<?, ?>) c).getChannelWriter();
        while (writer instanceof CommandExpiryWriter expiring) {
            writer = expiring.getDelegate();
        }
        if (!(writer instanceof DefaultEndpoint endpoint)) {
            throw new IllegalStateException(
                    "no socket to close behind " + writer.getClass().getName());
        }
        endpoint.disconnect();
    }

    private static Masters standaloneInfo(StatefulRedisConnection<String, String> c, String address) {
        return section -> Map.of(address, c.sync().info(section));
    }

    @Override
    public void close() {
        try {
            resources.close();
        } catch (Exception e) {
            throw new IllegalStateException("closing the Redis connection: " + e.getMessage(), e);
        }
    }
}
