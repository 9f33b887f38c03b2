package io.seckill.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.lettuce.core.RedisClient;
import io.seckill.engines.RedisClusterNodes;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A Redis Cluster after a master died and its replica took over: the dead node stays in every node's
 * table (flagged {@code fail}, no slots) until an operator forgets it, for hours in a real incident. What
 * the application asks of the cluster must not need that node.
 */
class DeadClusterNodeIT {

    private static final SkuSlot SLOT = SkuSlot.single(1, 1);
    /** read_counters' keys: stock, counter hash, transfers hash. */
    private static final String[] KEYS = {SLOT.stock(), SLOT.counter(), SLOT.transfers()};

    private static RedisClusterNodes cluster;
    private static Redis redis;
    private static int promoted;

    @BeforeAll
    static void failOverOneMaster() throws Exception {
        cluster = RedisClusterNodes.start(Files.createTempDirectory("seckill-dead-node"), 3, 1, 64);
        redis = Redis.connect(null, List.of(cluster.seeds().split(",")));
        int dead = cluster.ownerOf(SLOT.stock());
        promoted = cluster.failover(dead);
        // the client follows the promotion (topology refresh) before the tests ask anything of the slot
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> redis.sync().set(SLOT.stock(), "0") != null);
    }

    @AfterAll
    static void close() throws Exception {
        try (RedisClusterNodes nodes = cluster;
                Redis connection = redis) {
            // the connection is closed first, then the cluster (a resource that was never made is skipped)
        }
    }

    @Test
    @DisplayName(
            "a script run for the first time after a node died runs, also on the promoted master (the dead node is "
                    + "not asked to load it)")
    void scriptsRunWithANodeDead() {
        redis.sync().set(SLOT.stock(), "7");
        assertThat(ScriptReply.text(LuaScript.load("read_counters").run(redis, KEYS), 0))
                .isEqualTo("7");
        assertThat(ScriptReply.text(
                        LuaScript.load("read_counters")
                                .runAsync(redis, KEYS)
                                .toCompletableFuture()
                                .join(),
                        0))
                .isEqualTo("7");
    }

    @Test
    @DisplayName("a master that lost its script cache (restarted, or promoted without it) gets the script again on the "
            + "call that found it missing")
    void scriptsSurviveALostCache() {
        LuaScript script = LuaScript.load("read_counters");
        redis.sync().set(SLOT.stock(), "5");
        assertThat(ScriptReply.text(script.run(redis, KEYS), 0)).isEqualTo("5");
        flushScripts(promoted);
        assertThat(ScriptReply.text(script.run(redis, KEYS), 0)).isEqualTo("5");
        flushScripts(promoted);
        assertThat(ScriptReply.text(
                        script.runAsync(redis, KEYS).toCompletableFuture().join(), 0))
                .isEqualTo("5");
    }

    @Test
    @DisplayName("memory and eviction are read from the masters that hold slots: the dead one is not among them, and "
            + "an instance still starts")
    void memoryIsReadFromLiveMasters() {
        List<RedisMemory> masters = RedisMemory.read(redis);
        assertThat(masters).hasSize(3);
        assertThat(masters).extracting(RedisMemory::node).contains("127.0.0.1:" + promoted);
        assertThatCode(() -> RedisMemory.requireNoEviction(redis)).doesNotThrowAnyException();
    }

    @Test
    @DisplayName("a reconnect closes the live masters' sockets and does not fail on the dead node")
    void reconnectSkipsTheDeadNode() {
        assertThatCode(redis::reconnect).doesNotThrowAnyException();
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(10))
                .ignoreExceptions()
                .until(() -> "PONG".equals(redis.sync().ping()));
    }

    @Test
    @DisplayName(
            "a SCAN for a sale's keys asks the masters that serve slots, not the dead node (close-out finds every key "
                    + "after a failover)")
    void scanSkipsTheDeadNode() {
        redis.sync().set(SLOT.stock(), "3");
        redis.sync().set(SkuSlot.single(1, 2).stock(), "4");
        List<String> found = new java.util.ArrayList<>();
        assertThatCode(() -> redis.nodes().scan(SkuSlot.salePattern(1), found::add))
                .doesNotThrowAnyException();
        assertThat(found).contains(SLOT.stock(), SkuSlot.single(1, 2).stock());
    }

    private static void flushScripts(int port) {
        RedisClient c = RedisClient.create("redis://127.0.0.1:" + port);
        try (var conn = c.connect()) {
            conn.sync().scriptFlush();
        } finally {
            c.shutdown();
        }
    }
}
