package io.seckill.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One Lua file under {@code lua/}, called with EVALSHA of its SHA-1; where the node serving the keys
 * does not have it (a restart or a failover emptied its script cache, or it never ran it), the same call
 * is made once with EVAL, which runs the script and leaves it in that node's cache. SCRIPT LOAD is never
 * used: on a cluster it goes to every node, and fails while any one of them is down - a dead master
 * stays in the cluster's node table long after its replica took over. Every script returns a list
 * whose first element is a numeric code.
 */
public final class LuaScript {

    private final String source;
    private final String sha;

    private LuaScript(String source) {
        this.source = source;
        this.sha = sha1(source);
    }

    private static String sha1(String source) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-1, which Redis names scripts by", e);
        }
    }

    /**
     * The script {@code lua/<name>.lua}; a line {@code --@include <lib>} is replaced by the text of
     * {@code lua/lib/<lib>.lua} (guards shared by several scripts, written once).
     */
    public static LuaScript load(String name) {
        StringBuilder source = new StringBuilder();
        for (String line : read(name).split("\n", -1)) {
            if (line.startsWith(INCLUDE)) {
                source.append(read("lib/" + line.substring(INCLUDE.length()).trim()));
            } else {
                source.append(line).append('\n');
            }
        }
        return new LuaScript(source.toString());
    }

    private static final String INCLUDE = "--@include ";

    private static String read(String name) {
        try (InputStream in = LuaScript.class.getResourceAsStream("/lua/" + name + ".lua")) {
            if (in == null) {
                throw new IllegalStateException("missing script lua/" + name + ".lua");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String source() {
        return source;
    }

    /** Runs the script; Redis errors propagate (callers fail closed). */
    public List<Object> run(Redis conn, String[] keys, String... args) {
        try {
            return conn.sync().evalsha(sha, ScriptOutputType.MULTI, keys, args);
        } catch (RedisNoScriptException e) {
            return conn.sync().eval(source, ScriptOutputType.MULTI, keys, args);
        }
    }

    /** Runs the script without blocking the calling thread (a broker callback, say). */
    public CompletionStage<List<Object>> runAsync(Redis conn, String[] keys, String... args) {
        CompletionStage<List<Object>> first = conn.async().evalsha(sha, ScriptOutputType.MULTI, keys, args);
        return first.exceptionallyCompose(e -> {
            Throwable cause =
                    e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof RedisNoScriptException) {
                return conn.async().<List<Object>>eval(source, ScriptOutputType.MULTI, keys, args);
            }
            return CompletableFuture.failedStage(cause);
        });
    }
}
