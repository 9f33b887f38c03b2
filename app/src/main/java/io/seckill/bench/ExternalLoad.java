package io.seckill.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The standard load tools, when installed: {@code redis-benchmark} for the EVALSHA ceiling and
 * {@code wrk} for HTTP. They cost far less CPU than a JVM client on the same two cores, so the
 * ratio measures the server, not the load generator.
 */
final class ExternalLoad {

    private ExternalLoad() {
    }

    static Optional<Path> tool(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Unpipelined EVALSHA of reserve.lua from {@code clients} connections, every call a new user and request. */
    static double redisBenchmark(Path tool, int port, String sha, long activityId, int clients, int requests)
            throws IOException, InterruptedException {
        String tag = "seckill:{" + activityId + ":1}:";
        List<String> cmd = List.of(tool.toString(), "-p", Integer.toString(port), "-c", Integer.toString(clients), "-n",
                Integer.toString(requests), "-r", "100000000", "-q", "evalsha", sha, "8", tag + "stock", tag + "counter",
                tag + "meta", tag + "request:__rand_int__:q", tag + "user:__rand_int__", tag + "send_due",
                tag + "deadline", tag + "reservation:r__rand_int__", "r__rand_int__", "m__rand_int__", "q__rand_int__", "__rand_int__",
                Long.toString(activityId), "1", "1", "5000", "600000", "86400000");
        String out = run(cmd);
        Matcher m = Pattern.compile("([0-9.]+) requests per second").matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("unexpected redis-benchmark output: " + out);
        }
        return Double.parseDouble(m.group(1));
    }

    /** POSTs reservations with wrk, each request a distinct user (token) and a fresh request id. */
    static double wrk(Path tool, String url, List<String> tokens, int connections, int seconds, Path dir)
            throws IOException, InterruptedException {
        Path tokenFile = dir.resolve("tokens.txt");
        Files.write(tokenFile, tokens, StandardCharsets.UTF_8);
        Path script = dir.resolve("reserve.lua");
        Files.writeString(script, """
                local tokens = {}
                for line in io.lines("%s") do tokens[#tokens + 1] = line end
                local counter = 0
                local thread_id = 0
                function setup(thread)
                    thread:set("id", thread_id)
                    thread_id = thread_id + 1
                end
                function init(args)
                    counter = id
                    math.randomseed(os.time() + id)
                end
                local function uuid()
                    return string.format("%%08x-%%04x-4%%03x-%%04x-%%012x", math.random(0, 0xffffffff),
                        math.random(0, 0xffff), math.random(0, 0xfff), math.random(0x8000, 0xbfff),
                        math.random(0, 0xffffffffffff))
                end
                function request()
                    counter = counter + 2
                    local token = tokens[(counter %% #tokens) + 1]
                    return wrk.format("POST", nil, {["Content-Type"] = "application/json",
                        ["Authorization"] = "Bearer " .. token}, '{"request_id":"' .. uuid() .. '"}')
                end
                """.formatted(tokenFile));
        String out = run(List.of(tool.toString(), "-t2", "-c" + connections, "-d" + seconds + "s", "-s", script.toString(), url));
        if (out.contains("Non-2xx")) {
            throw new IllegalStateException("wrk saw refusals (tokens exhausted or errors):\n" + out);
        }
        Matcher m = Pattern.compile("Requests/sec:\\s+([0-9.]+)").matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("unexpected wrk output: " + out);
        }
        return Double.parseDouble(m.group(1));
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(cmd)).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException(cmd.get(0) + " failed: " + new String(out, StandardCharsets.UTF_8));
        }
        String s = new String(out, StandardCharsets.UTF_8);
        // redis-benchmark -q redraws its progress line with carriage returns; keep the final result
        return s.substring(Math.max(0, s.lastIndexOf('\r') + 1));
    }
}
