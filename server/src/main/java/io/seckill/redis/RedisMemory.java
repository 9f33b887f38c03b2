package io.seckill.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What one Redis master says of its memory (INFO memory and stats): the engine keeps stock, reservations,
 * request maps, buyer marks and the send schedule in Redis, and a key Redis drops to make room is a
 * reservation that may never be sent or a unit that is gone. Only {@code maxmemory-policy noeviction}
 * keeps them all; with it a full Redis refuses writes, and admission answers 503 until there is room.
 *
 * @param node the master's address
 * @param policy {@code maxmemory_policy}
 * @param usedBytes {@code used_memory}
 * @param maxBytes {@code maxmemory} (0: no limit)
 * @param evictedKeys {@code evicted_keys}, since the server started
 */
public record RedisMemory(String node, String policy, long usedBytes, long maxBytes, long evictedKeys) {

    public static final String SAFE_POLICY = "noeviction";

    /** Every master's memory now. */
    public static List<RedisMemory> read(Redis redis) {
        Map<String, String> memory = redis.masters().info("memory");
        Map<String, String> stats = redis.masters().info("stats");
        List<RedisMemory> out = new ArrayList<>();
        memory.forEach((node, text) -> out.add(parse(node, text, stats.getOrDefault(node, ""))));
        return out;
    }

    /** Read from the text of the two INFO sections; a field missing is a failure naming it. */
    static RedisMemory parse(String node, String memoryInfo, String statsInfo) {
        Map<String, String> m = fields(memoryInfo);
        Map<String, String> s = fields(statsInfo);
        return new RedisMemory(
                node,
                field(node, m, "maxmemory_policy"),
                Long.parseLong(field(node, m, "used_memory")),
                Long.parseLong(field(node, m, "maxmemory")),
                Long.parseLong(field(node, s, "evicted_keys")));
    }

    /** Whether this master may drop keys to make room: a memory limit, and a policy other than noeviction. */
    public boolean mayEvict() {
        return maxBytes > 0 && !SAFE_POLICY.equals(policy);
    }

    /** used / maxmemory; 0 with no limit. */
    public double usedShare() {
        return maxBytes == 0 ? 0 : (double) usedBytes / maxBytes;
    }

    /**
     * Fails when any master may evict: an engine on such a Redis would lose reservations and units as
     * memory fills, silently. Checked when the instance starts.
     */
    public static void requireNoEviction(Redis redis) {
        for (RedisMemory m : read(redis)) {
            if (m.mayEvict()) {
                throw new IllegalStateException("Redis " + m.node() + " may evict keys (maxmemory " + m.maxBytes()
                        + " bytes, maxmemory-policy " + m.policy()
                        + "): the engine keeps stock, reservations and their "
                        + "send schedule there and must not lose one; set maxmemory-policy " + SAFE_POLICY
                        + " (a full Redis then refuses admission instead), or no maxmemory");
            }
        }
    }

    private static Map<String, String> fields(String info) {
        Map<String, String> out = new java.util.HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                out.put(line.substring(0, colon), line.substring(colon + 1).strip());
            }
        }
        return out;
    }

    private static String field(String node, Map<String, String> fields, String name) {
        String v = fields.get(name);
        if (v == null) {
            throw new IllegalStateException("Redis " + node + " INFO has no " + name);
        }
        return v;
    }
}
