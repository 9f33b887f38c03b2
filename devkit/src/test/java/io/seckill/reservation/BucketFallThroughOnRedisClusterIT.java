package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.engines.RedisClusterNodes;
import io.seckill.redis.SkuSlot;
import io.seckill.support.OnRedisCluster;
import io.seckill.support.TestRedisCluster;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link BucketFallThroughIT} on a Redis Cluster (three masters, a replica each): the buckets of one SKU
 * sit on different masters, so each transfer's halves run on two of them.
 */
@OnRedisCluster
class BucketFallThroughOnRedisClusterIT extends BucketFallThroughIT {

    @Test
    @DisplayName("the four buckets of a SKU are spread over more than one master of the cluster")
    void bucketsOnSeveralMasters() {
        assertThat(redis.cluster()).isTrue();
        Set<String> masters = new HashSet<>();
        for (SkuSlot slot : SkuSlot.all(newActivityId(), 1, 4)) {
            for (RedisClusterNodes.Node m : TestRedisCluster.get().masters()) {
                io.lettuce.core.RedisClient c = io.lettuce.core.RedisClient.create(m.uri());
                try (var conn = c.connect()) {
                    long keySlot = io.lettuce.core.cluster.SlotHash.getSlot(slot.stock());
                    if (owns(conn.sync().clusterNodes(), keySlot)) {
                        masters.add(m.uri());
                    }
                } finally {
                    c.shutdown();
                }
            }
        }
        assertThat(masters).as("masters holding the four buckets' slots").hasSizeGreaterThan(1);
    }

    /** Whether the node answering CLUSTER NODES ("myself") serves {@code slot}. */
    private static boolean owns(String nodes, long slot) {
        for (String line : nodes.split("\n")) {
            if (!line.contains("myself")) {
                continue;
            }
            String[] parts = line.trim().split(" ");
            for (int i = 8; i < parts.length; i++) {
                if (!parts[i].matches("\\d+(-\\d+)?")) {
                    continue;
                }
                String[] range = parts[i].split("-");
                long lo = Long.parseLong(range[0]);
                long hi = range.length > 1 ? Long.parseLong(range[1]) : lo;
                if (slot >= lo && slot <= hi) {
                    return true;
                }
            }
        }
        return false;
    }
}
