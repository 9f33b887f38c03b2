package io.seckill.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.seckill.support.JsonReplies;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench's load generator (wrk with the bench's script) against a server that only counts who
 * called: every request carries a buyer of the token file, each buyer once until the file is used up.
 */
class WrkScriptIT {

    @TempDir
    Path dir;

    /** Each token seen in an Authorization header, with how often. */
    private final Map<String, AtomicLong> seen = new ConcurrentHashMap<>();

    private HttpServer server() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 128);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/", exchange -> {
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            seen.computeIfAbsent(auth == null ? "none" : auth.substring("Bearer ".length()), k -> new AtomicLong())
                    .incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            JsonReplies.reply(exchange, 202, "{}");
        });
        server.start();
        return server;
    }

    private Path tokens(int n) throws Exception {
        return Files.write(
                dir.resolve("tokens-" + n + ".txt"),
                IntStream.range(0, n).mapToObj(i -> "token-" + i).toList());
    }

    private ExternalLoad.WrkResult run(Path tokens, int seconds, double perSecond) throws Exception {
        HttpServer server = server();
        try {
            Path wrk = ExternalLoad.tool("wrk")
                    .orElseThrow(() -> new AssertionError(
                            "wrk is not installed (apt-get install wrk; ./seckill test installs it when it can)"));
            return ExternalLoad.wrk(
                    wrk,
                    "http://127.0.0.1:" + server.getAddress().getPort() + "/reserve",
                    tokens,
                    4,
                    seconds,
                    dir,
                    perSecond);
        } finally {
            server.stop(0);
        }
    }

    @Test
    @DisplayName(
            "a file with more buyers than requests: every request a different buyer of the file, every answer counted")
    void eachBuyerOnce() throws Exception {
        List<String> file = Files.readAllLines(tokens(20_000));
        ExternalLoad.WrkResult r = run(dir.resolve("tokens-20000.txt"), 2, 1_000);
        long requests = seen.values().stream().mapToLong(AtomicLong::get).sum();
        assertThat(requests).as("requests the server saw").isGreaterThan(500);
        assertThat(seen.values()).as("each buyer at most once").allMatch(n -> n.get() == 1);
        assertThat(file).containsAll(seen.keySet());
        assertThat(r.statuses()).containsOnlyKeys(202);
        assertThat(r.answers()).as("answers counted by the script").isBetween(requests - 8, requests);
    }

    @Test
    @DisplayName("a file of three buyers used up: both threads come round to their buyers again, all three are used")
    void comesRoundWhenUsedUp() throws Exception {
        run(tokens(3), 1, 200);
        assertThat(seen.keySet()).containsExactlyInAnyOrder("token-0", "token-1", "token-2");
        assertThat(seen.values().stream().mapToLong(AtomicLong::get).sum()).isGreaterThan(20);
    }
}
