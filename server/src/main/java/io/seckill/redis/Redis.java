package io.seckill.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

/**
 * The engine's one Redis connection, standalone or Redis Cluster: only commands that name their keys,
 * each script call within one hash-tagged slot, so both deployments run the same code.
 *
 * @param cluster true on a Redis Cluster (a script is loaded on every master)
 * @param masters each master's INFO, for what no keyed command tells (memory, evictions)
 * @param resources what {@link #close()} releases: the connection, and the client when this owns it
 */
public record Redis(RedisClusterCommands<String, String> sync, RedisClusterAsyncCommands<String, String> async,
        boolean cluster, Masters masters, AutoCloseable resources) implements AutoCloseable {

    /** The masters of the deployment: the one server of a standalone Redis, every master of a cluster. */
    @FunctionalInterface
    public interface Masters {
        /** A section of each master's INFO, by the master's address. */
        Map<String, String> info(String section);
    }

    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

    /**
     * A standalone Redis ({@code redisUri}), or a Redis Cluster from its seed nodes with the topology
     * refreshed periodically and on every redirect or reconnect, so a failover (a replica promoted) is
     * followed within seconds. Commands are never queued while disconnected: admission fails closed
     * rather than waits.
     */
    public static Redis connect(String redisUri, List<String> clusterSeeds) {
        if (clusterSeeds.isEmpty()) {
            RedisURI uri = RedisURI.create(redisUri);
            RedisClient client = RedisClient.create();
            client.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(TimeoutOptions.enabled(COMMAND_TIMEOUT))
                    .build());
            return standalone(client, uri);
        }
        RedisClusterClient client = RedisClusterClient.create(clusterSeeds.stream().map(RedisURI::create).toList());
        client.setOptions(ClusterClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(COMMAND_TIMEOUT))
                .maxRedirects(5)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(Duration.ofSeconds(10))
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                        .build())
                .build());
        return cluster(client);
    }

    /** A connection to a standalone Redis; closing it leaves the client to its owner. */
    public static Redis of(StatefulRedisConnection<String, String> c) {
        return new Redis(c.sync(), c.async(), false, standaloneInfo(c, "redis"), c::close);
    }

    /** A connection to {@code uri} this owns, client included. */
    public static Redis standalone(RedisClient client, RedisURI uri) {
        StatefulRedisConnection<String, String> c = client.connect(uri);
        return new Redis(c.sync(), c.async(), false, standaloneInfo(c, uri.getHost() + ":" + uri.getPort()), () -> {
            c.close();
            client.shutdown();
        });
    }

    /** A cluster connection this owns, client included. */
    public static Redis cluster(RedisClusterClient client) {
        StatefulRedisClusterConnection<String, String> c = client.connect();
        Masters masters = section -> {
            Map<String, String> out = new TreeMap<>();
            c.sync().masters().commands().info(section).asMap()
                    .forEach((node, text) -> out.put(node.getUri().getHost() + ":" + node.getUri().getPort(), text));
            return out;
        };
        return new Redis(c.sync(), c.async(), true, masters, () -> {
            c.close();
            client.shutdown();
        });
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
