package io.seckill.engines;

import io.lettuce.core.RedisClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Stopping a Redis process without closing anything (SIGSTOP) and letting it run again (SIGCONT), as a
 * hung server or a network partition does: its connections stay open and nothing is answered.
 */
final class RedisSignals {

    private RedisSignals() {}

    /** The process id the Redis at {@code uri} reports of itself. */
    static long pid(String uri) {
        RedisClient client = RedisClient.create(uri);
        try (var c = client.connect()) {
            return c.sync()
                    .info("server")
                    .lines()
                    .filter(l -> l.startsWith("process_id:"))
                    .map(l -> Long.parseLong(l.substring("process_id:".length()).strip()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("Redis at " + uri + " did not say its process id"));
        } finally {
            client.shutdown();
        }
    }

    static void stop(long pid) throws IOException, InterruptedException {
        signal("STOP", pid);
    }

    static void resume(long pid) throws IOException, InterruptedException {
        signal("CONT", pid);
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .redirectErrorStream(true)
                .start();
        String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + signal + " " + pid + " failed: " + said);
        }
    }
}
