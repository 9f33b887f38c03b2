package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.engines.RedisClusterNodes;
import io.seckill.support.OnRedisCluster;
import io.seckill.support.TestRedisCluster;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link HappyPathIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@OnRedisCluster
class HappyPathOnRedisClusterIT extends HappyPathIT {

    @Test
    @DisplayName("this context runs on the cluster: sales' keys are spread over the masters by their hash tags")
    void runsOnTheCluster() throws Exception {
        assertThat(redis.cluster()).isTrue();
        for (int i = 0; i < 6; i++) {
            openSale(1);
        }
        List<RedisClusterNodes.Node> masters = TestRedisCluster.get().masters();
        assertThat(masters).hasSize(3);
        long mastersWithKeys = masters.stream()
                .filter(m -> {
                    io.lettuce.core.RedisClient c = io.lettuce.core.RedisClient.create(m.uri());
                    try (var conn = c.connect()) {
                        return conn.sync().dbsize() > 0;
                    } finally {
                        c.shutdown();
                    }
                })
                .count();
        assertThat(mastersWithKeys).as("six sales land on more than one master").isGreaterThan(1);
    }
}
