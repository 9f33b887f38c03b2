package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.seckill.cli.SaleClient;
import io.seckill.redis.Redis;
import io.seckill.redis.RedisMemory;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.embedded.RedisServer;

/**
 * A Redis that may drop keys to make room is refused, and one that drops them all the same is seen; a
 * full Redis that keeps its keys refuses admission and writes nothing. The first two on a Redis of
 * their own (evictions there touch no other test's keys).
 */
class RedisMemoryIT extends IntegrationTest {

    private static RedisServer own;
    private static RedisClient ownClient;
    private static Redis ownRedis;

    @BeforeAll
    static void startOwnRedis() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path dir = Files.createTempDirectory("seckill-redis-memory");
        own = RedisServer.builder()
                .port(port)
                .bind("127.0.0.1")
                .setting("dir " + dir)
                .setting("save \"\"")
                .setting("appendonly no")
                .build();
        own.start();
        ownClient = RedisClient.create("redis://127.0.0.1:" + port);
        ownRedis = Redis.of(ownClient.connect());
    }

    @AfterAll
    static void stopOwnRedis() throws IOException {
        ownRedis.close();
        ownClient.shutdown();
        own.stop();
    }

    @Test
    @DisplayName(
            "an instance refuses a Redis that may evict (a memory limit and a policy other than noeviction), naming "
                    + "the policy; noeviction, or no limit, is accepted")
    void evictingRedisIsRefused() {
        ownRedis.sync().configSet("maxmemory", "64mb");
        ownRedis.sync().configSet("maxmemory-policy", "allkeys-lru");
        assertThatThrownBy(() -> RedisMemory.requireNoEviction(ownRedis))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("maxmemory-policy allkeys-lru")
                .hasMessageContaining("set maxmemory-policy noeviction");
        ownRedis.sync().configSet("maxmemory-policy", "volatile-ttl");
        assertThatThrownBy(() -> RedisMemory.requireNoEviction(ownRedis)).hasMessageContaining("volatile-ttl");

        ownRedis.sync().configSet("maxmemory-policy", "noeviction");
        RedisMemory.requireNoEviction(ownRedis);
        ownRedis.sync().configSet("maxmemory", "0");
        ownRedis.sync().configSet("maxmemory-policy", "allkeys-lru");
        RedisMemory.requireNoEviction(ownRedis);
        assertThat(RedisMemory.read(redis))
                .as("the engines' own Redis")
                .isNotEmpty()
                .noneMatch(RedisMemory::mayEvict);
    }

    @Test
    @DisplayName("the policy changed at run time and keys evicted all the same: the watch shows the master that may "
            + "evict, counts every key Redis dropped (as INFO counts them) and how full the fullest master is")
    void evictionsAreCounted() {
        MeterRegistry meters = new SimpleMeterRegistry();
        RedisMemoryWatch watch = new RedisMemoryWatch(ownRedis, props, meters);
        ownRedis.sync().flushall();
        ownRedis.sync().configSet("maxmemory-policy", "noeviction");
        ownRedis.sync().configSet("maxmemory", "0");
        watch.runPass();
        assertThat(meters.get("redis.masters.may.evict").gauge().value()).isZero();
        long evictedAtStart = RedisMemory.read(ownRedis).getFirst().evictedKeys();

        ownRedis.sync().configSet("maxmemory", "4mb");
        ownRedis.sync().configSet("maxmemory-policy", "allkeys-random");
        watch.runPass();
        assertThat(meters.get("redis.masters.may.evict").gauge().value()).isEqualTo(1);
        double countedBefore = meters.get("redis.evictions").counter().count();

        String value = "x".repeat(10_000);
        for (int i = 0; i < 2_000; i++) {
            ownRedis.sync().set("fill:" + i, value);
        }
        watch.runPass();
        long evicted = RedisMemory.read(ownRedis).getFirst().evictedKeys() - evictedAtStart;
        assertThat(evicted).as("20 MB written into 4 MB").isGreaterThan(1_000);
        assertThat(meters.get("redis.evictions").counter().count() - countedBefore)
                .isEqualTo(evicted);
        assertThat(meters.get("redis.memory.used.ratio").gauge().value()).isGreaterThan(0.5);

        ownRedis.sync().configSet("maxmemory-policy", "noeviction");
        ownRedis.sync().flushall();
        watch.runPass();
        assertThat(meters.get("redis.masters.may.evict").gauge().value()).isZero();
        assertThat(meters.get("redis.evictions").counter().count() - countedBefore)
                .as("nothing dropped since")
                .isEqualTo(evicted);

        // an instance started later finds that history on the master: it is not news, the alert stays quiet
        MeterRegistry restarted = new SimpleMeterRegistry();
        new RedisMemoryWatch(ownRedis, props, restarted).runPass();
        assertThat(RedisMemory.read(ownRedis).getFirst().evictedKeys()).isGreaterThan(1_000);
        assertThat(restarted.get("redis.evictions").counter().count())
                .as("counted from the first reading on")
                .isZero();
    }

    @Test
    @DisplayName("a full Redis that keeps its keys (noeviction) refuses the reserve call 503 and writes nothing of it; "
            + "once there is room the same buyer is admitted")
    void fullRedisRefusesAdmission() throws Exception {
        String limit = redis.sync().configGet("maxmemory").get("maxmemory");
        long activityId = openSale(3);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        String stock = redis.sync().get(slot.stock());
        SaleClient.Response refused;
        try {
            redis.sync().configSet("maxmemory", "1");
            refused = reserve(91, activityId, 1);
        } finally {
            redis.sync().configSet("maxmemory", limit);
        }
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.body()).containsEntry("code", "ADMISSION_PAUSED");
        assertThat(redis.sync().get(slot.stock())).as("stock untouched").isEqualTo(stock);
        assertThat(keys(slot.reservation("*"))).as("no reservation written").isZero();
        assertThat(counter("reservation.refused", "reason", "redis_unavailable"))
                .isPositive();

        assertThat(reserve(91, activityId, 1).status()).isEqualTo(202);
        awaitSettled(activityId, 1);
        assertInvariants(activityId, true);
    }

    private long keys(String pattern) {
        long n = 0;
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page =
                    redis.sync().scan(cursor, ScanArgs.Builder.matches(pattern).limit(500));
            n += page.getKeys().size();
            cursor = page;
        } while (!cursor.isFinished());
        return n;
    }
}
