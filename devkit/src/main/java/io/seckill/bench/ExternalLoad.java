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
import org.HdrHistogram.Histogram;

/**
 * The standard load tools, when installed: {@code redis-benchmark} for the EVALSHA ceiling and
 * {@code wrk} for HTTP. They cost far less CPU than a JVM client on the same two cores, so the
 * ratio measures the server, not the load generator.
 */
final class ExternalLoad {

    private ExternalLoad() {}

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
        List<String> cmd = List.of(
                tool.toString(),
                "-p",
                Integer.toString(port),
                "-c",
                Integer.toString(clients),
                "-n",
                Integer.toString(requests),
                "-r",
                "100000000",
                "-q",
                "evalsha",
                sha,
                "8",
                tag + "stock",
                tag + "counter",
                tag + "meta",
                tag + "request:__rand_int__:q",
                tag + "user:__rand_int__",
                tag + "send_due",
                tag + "deadline",
                tag + "reservation:r__rand_int__",
                "r__rand_int__",
                "m__rand_int__",
                "q__rand_int__",
                "__rand_int__",
                Long.toString(activityId),
                "1",
                "1",
                "5000",
                "600000",
                "86400000");
        String out = run(cmd);
        Matcher m = Pattern.compile("([0-9.]+) requests per second").matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("unexpected redis-benchmark output: " + out);
        }
        return Double.parseDouble(m.group(1));
    }

    /** What wrk measured: all answers per second, the 202s per second, every status seen, latency. */
    record WrkResult(
            double requestsPerSecond,
            double admittedPerSecond,
            java.util.Map<Integer, Long> statuses,
            double p50Millis,
            double p99Millis,
            Histogram latency) {
        long answers() {
            return statuses.values().stream().mapToLong(Long::longValue).sum();
        }

        long refused() {
            return statuses.entrySet().stream()
                    .filter(e -> e.getKey() != 202)
                    .mapToLong(java.util.Map.Entry::getValue)
                    .sum();
        }
    }

    /**
     * POSTs reservations with wrk, each request a distinct user (a token of {@code tokens}, one a line)
     * and a fresh request id. Every answer's status is counted (refusals are reported, not a failure of
     * the bench).
     */
    static WrkResult wrk(Path tool, String url, Path tokens, int connections, int seconds, Path dir)
            throws IOException, InterruptedException {
        return wrk(tool, url, tokens, connections, seconds, dir, 0);
    }

    /** wrk's two threads, each sending at most half of {@code perSecond} (0: as fast as answers come). */
    private static final int WRK_THREADS = 2;

    /**
     * As {@link #wrk(Path, String, Path, int, int, Path)}, paced to {@code perSecond} requests in all
     * (0: unpaced). Each wrk thread hands its connections send times {@code threads / perSecond} apart
     * (wrk's {@code delay()}, timed by the C library's clock through LuaJIT), so latency is measured at
     * a load chosen in advance rather than at whatever the server sustains; a server slower than the
     * pace shows as an achieved rate below it.
     */
    static WrkResult wrk(
            Path tool, String url, Path tokenFile, int connections, int seconds, Path dir, double perSecond)
            throws IOException, InterruptedException {
        Path script = dir.resolve("reserve.lua");
        String pacing = perSecond <= 0 ? "" : """
                local ffi = require("ffi")
                ffi.cdef[[ typedef struct { long tv_sec; long tv_usec; } seckill_timeval;
                           int gettimeofday(seckill_timeval *tv, void *tz); ]]
                local tv = ffi.new("seckill_timeval")
                local period_ms = %f
                local next_at = nil
                function delay()
                    ffi.C.gettimeofday(tv, nil)
                    local now = tonumber(tv.tv_sec) * 1000 + tonumber(tv.tv_usec) / 1000
                    if next_at == nil then next_at = now end
                    local wait = next_at - now
                    next_at = math.max(next_at, now) + period_ms
                    if wait < 0 then return 0 end
                    return wait
                end
                """.formatted(WRK_THREADS * 1000.0 / perSecond);
        Files.writeString(script, pacing + """
                -- each thread reads its buyers' tokens from the file as it goes (lines id + 1, id + 1 + threads, ...):
                -- a table of every token in every Lua state made the collector walk hundreds of thousands of
                -- strings again and again, CPU taken from the server on the same cores
                local token_file = "%s"
                local tokens = nil
                local thread_id = 0
                local threads = {}
                statuses = {}
                function setup(thread)
                    thread:set("id", thread_id)
                    thread_id = thread_id + 1
                    table.insert(threads, thread)
                end
                local function skip(n)
                    for _ = 1, n do tokens:read("*l") end
                end
                function init(args)
                    math.randomseed(os.time() + id)
                    tokens = assert(io.open(token_file, "r"))
                    skip(id)
                end
                local function next_token()
                    local token = tokens:read("*l")
                    if token == nil then
                        tokens:seek("set", 0)
                        skip(id)
                        token = tokens:read("*l")
                    end
                    skip(%d - 1)
                    return token
                end
                local function uuid()
                    return string.format("%%08x-%%04x-4%%03x-%%04x-%%012x", math.random(0, 0xffffffff),
                        math.random(0, 0xffff), math.random(0, 0xfff), math.random(0x8000, 0xbfff),
                        math.random(0, 0xffffffffffff))
                end
                function request()
                    return wrk.format("POST", nil, {["Content-Type"] = "application/json",
                        ["Authorization"] = "Bearer " .. next_token()}, '{"request_id":"' .. uuid() .. '"}')
                end
                function response(status, headers, body)
                    statuses[status] = (statuses[status] or 0) + 1
                end
                function done(summary, latency, requests)
                    local total = {}
                    for _, t in ipairs(threads) do
                        for status, n in pairs(t:get("statuses")) do
                            total[status] = (total[status] or 0) + n
                        end
                    end
                    for status, n in pairs(total) do
                        io.write(string.format("status %%d %%d\\n", status, n))
                    end
                    io.write(string.format("p50_us %%d\\np99_us %%d\\n", latency:percentile(50), latency:percentile(99)))
                    local p = 0.1
                    while p < 99.9995 do
                        io.write(string.format("pct %%.3f %%d\\n", p, latency:percentile(p)))
                        if p < 98.95 then p = p + 0.1 elseif p < 99.895 then p = p + 0.01 else p = p + 0.001 end
                    end
                    io.write(string.format("pct 100 %%d\\n", latency.max))
                end
                """.formatted(tokenFile, WRK_THREADS));
        String out = run(List.of(
                tool.toString(),
                "-t" + WRK_THREADS,
                "-c" + connections,
                "-d" + seconds + "s",
                "-s",
                script.toString(),
                url));
        Matcher m = Pattern.compile("Requests/sec:\\s+([0-9.]+)").matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("unexpected wrk output: " + out);
        }
        if (!out.contains("p50_us")) {
            throw new IllegalStateException("the wrk script did not run to its end:\n" + out);
        }
        java.util.Map<Integer, Long> statuses = new java.util.TreeMap<>();
        Matcher st = Pattern.compile("status (\\d+) (\\d+)").matcher(out);
        while (st.find()) {
            statuses.put(Integer.parseInt(st.group(1)), Long.parseLong(st.group(2)));
        }
        double p50 = number(out, "p50_us") / 1000.0;
        double p99 = number(out, "p99_us") / 1000.0;
        long total = statuses.values().stream().mapToLong(Long::longValue).sum();
        double rate = Double.parseDouble(m.group(1));
        double admitted = total == 0 ? 0 : rate * statuses.getOrDefault(202, 0L) / total;
        return new WrkResult(rate, admitted, statuses, p50, p99, latency(out, total));
    }

    /**
     * wrk's latency distribution as an HdrHistogram (microseconds): wrk prints its percentiles at steps of
     * 0.1 (0.01 above the 99th, 0.001 above the 99.9th), and each step's share of the requests is
     * recorded at that step's value.
     */
    static Histogram latency(String out, long requests) {
        Histogram h = new Histogram(3);
        Matcher m = Pattern.compile("pct ([0-9.]+) (\\d+)").matcher(out);
        long recorded = 0;
        while (m.find()) {
            double pct = Double.parseDouble(m.group(1));
            long upTo = Math.round(requests * pct / 100);
            long n = upTo - recorded;
            if (n > 0) {
                h.recordValueWithCount(Math.max(1, Long.parseLong(m.group(2))), n);
                recorded = upTo;
            }
        }
        return h;
    }

    private static double number(String out, String name) {
        Matcher m = Pattern.compile(name + " (\\d+)").matcher(out);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(cmd))
                .redirectErrorStream(true)
                .start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException(cmd.get(0) + " failed: " + new String(out, StandardCharsets.UTF_8));
        }
        String s = new String(out, StandardCharsets.UTF_8);
        // redis-benchmark -q redraws its progress line with carriage returns; keep the final result
        return s.substring(Math.max(0, s.lastIndexOf('\r') + 1));
    }
}
