package io.seckill.bench;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.seckill.engines.RedisClusterNodes;
import io.seckill.redis.LuaScript;
import io.seckill.redis.SkuSlot;
import io.seckill.reservation.ReservationIds;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * One hot SKU on a Redis Cluster of three masters: its stock split over 1, 2 and 3 buckets, each bucket
 * on a master of its own, and {@code reserve.lua} called as admission calls it (a buyer's bucket by
 * user id), in a closed loop of {@code threads} connections. The ratio to one master is what adding
 * masters buys; on one machine the masters, the cluster client and the loop share the same cores.
 */
final class ClusterRun {

    /** One run: masters (and buckets), reservations per second, redis-server CPU microseconds per reservation. */
    record Result(int masters, double perSecond, double redisMicrosPerReservation) {}

    private ClusterRun() {}

    static List<Result> run(Path dir, int threads, int seconds) throws Exception {
        List<Result> out = new ArrayList<>();
        // about 1 KB of keys per reservation: room for a minute at the rate of one master
        try (RedisClusterNodes nodes = RedisClusterNodes.start(dir, 3, 0, 2048)) {
            RedisClusterClient client = RedisClusterClient.create(
                    nodes.nodes().stream().map(n -> RedisURI.create(n.uri())).toList());
            try (StatefulRedisClusterConnection<String, String> admin = client.connect()) {
                LuaScript reserve = LuaScript.load("reserve");
                ReservationIds ids =
                        new ReservationIds(Map.of(1, "bench-cluster-ids-" + UUID.randomUUID() + UUID.randomUUID()));
                List<Long> pids = nodes.nodes().stream()
                        .map(n -> CpuMeter.redisPid(n.port()))
                        .flatMap(Optional::stream)
                        .toList();
                for (int masters = 1; masters <= 3; masters++) {
                    // each run starts empty: the previous run's reservations take memory and nothing else. Freed in
                    // the background: a synchronous FLUSHALL of a run's keys blocks a master past the cluster's node
                    // timeout, the others mark it failed and the next run meets CLUSTERDOWN
                    admin.sync().flushallAsync();
                    nodes.awaitHealthy();
                    long activityId = spreadOver(client, masters);
                    for (int b = 0; b < masters; b++) {
                        open(admin, new SkuSlot(activityId, 1, b, masters));
                    }
                    String sha = admin.sync().scriptLoad(reserve.source());
                    long cpu0 = pids.stream().mapToLong(CpuMeter::processNanos).sum();
                    int buckets = masters;
                    double rate = ClosedLoop.run(
                            "cluster, " + masters + " master(s)", 5_000_000L * masters, threads, seconds, () -> {
                                StatefulRedisClusterConnection<String, String> c = client.connect();
                                return new ClosedLoop.Buyer() {
                                    @Override
                                    public void buy(long user) {
                                        ClosedLoop.reserve(
                                                c.sync(),
                                                sha,
                                                ids,
                                                SkuSlot.forUser(activityId, 1, buckets, user),
                                                user);
                                    }

                                    @Override
                                    public void close() {
                                        c.close();
                                    }
                                };
                            });
                    long cpu = pids.stream().mapToLong(CpuMeter::processNanos).sum() - cpu0;
                    out.add(new Result(masters, rate, cpu / 1000.0 / Math.max(1, rate * seconds)));
                }
            } finally {
                client.shutdown();
            }
        }
        return out;
    }

    /** An activity id whose first {@code masters} buckets hash to slots of {@code masters} different masters. */
    private static long spreadOver(RedisClusterClient client, int masters) {
        for (long activityId = 9_000_001; ; activityId++) {
            Set<String> owners = new HashSet<>();
            for (int b = 0; b < masters; b++) {
                int slot = SlotHash.getSlot(new SkuSlot(activityId, 1, b, masters).stock());
                owners.add(client.getPartitions().getPartitionBySlot(slot).getNodeId());
            }
            if (owners.size() == masters) {
                return activityId;
            }
        }
    }

    /** A bucket with more stock than any run can take, open for a day. */
    private static void open(StatefulRedisClusterConnection<String, String> c, SkuSlot slot) {
        long now = System.currentTimeMillis();
        c.sync().set(slot.stock(), "100000000");
        c.sync().hset(slot.counter(), Map.of("initial", "100000000", "open_reserved", "0", "committed", "0"));
        c.sync()
                .hset(
                        slot.meta(),
                        Map.of(
                                "status",
                                "OPEN",
                                "start_ms",
                                Long.toString(now - 60_000),
                                "end_ms",
                                Long.toString(now + 86_400_000)));
    }
}
