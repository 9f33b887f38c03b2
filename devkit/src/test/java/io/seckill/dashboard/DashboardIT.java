package io.seckill.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.cli.SaleClient;
import io.seckill.engines.AppProcess;
import io.seckill.support.ApiOnlyChild;
import io.seckill.support.IntegrationTest;
import io.seckill.support.SteadyBuyers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The live dashboard in a real headless Chromium (Debian's chromium): the page loads with an admin
 * token, refreshes, and its numbers follow the sale and match the inventory API.
 */
class DashboardIT extends IntegrationTest {

    private static final Pattern VALUE = Pattern.compile("data-k=\"([^\"]+)\"[^>]*>([^<]*)<");

    @Test
    @DisplayName("the dashboard's numbers change as the sale proceeds and equal the inventory API's")
    void numbersFollowTheSale() throws Exception {
        long activityId = openSale(5);
        awaitOnBoard(activityId);
        Map<String, String> before = page();
        assertThat(before.get("refreshes"))
                .as("the page refreshed from the API")
                .isNotEqualTo("0");
        assertThat(before)
                .containsEntry("pg.sold." + activityId + ".1", "0")
                .containsEntry("pg.available." + activityId + ".1", "5")
                .containsEntry("redis.committed." + activityId + ".1", "0")
                .containsEntry("breaker", "open");

        for (long user = 1; user <= 3; user++) {
            assertThat(reserve(activityId * 10 + user, activityId, 1).status()).isEqualTo(202);
        }
        awaitSettled(activityId, 3);
        String rule = "DASHBOARD_SHOWN_" + activityId;
        jdbc.update(
                "INSERT INTO repair_task (repair_id, object_type, object_id, rule_name, target_state, status, operator, "
                        + "reason) VALUES (?, 'SKU', ?, ?, 'X', 'DONE', 'test', 'shown on the page')",
                rule,
                rule,
                rule);
        Map<String, String> after = page();
        String api = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + operatorPlane.port()
                                        + "/api/v1/admin/activities/" + activityId + "/inventory"))
                                .header("Authorization", "Bearer " + adminToken())
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body()
                .replace(" ", "");
        assertThat(after)
                .containsEntry("pg.occupied." + activityId + ".1", "3")
                .containsEntry("pg.available." + activityId + ".1", "2")
                .containsEntry("redis.committed." + activityId + ".1", "3")
                .containsEntry("redis.stock." + activityId + ".1", "2")
                .containsEntry("delta." + activityId + ".1", "0")
                .containsEntry("orders." + activityId + ".CREATED", "3")
                .containsEntry("invariants." + activityId, "PASS");
        assertThat(api).contains("\"occupied\":3", "\"available\":2", "\"committed\":3");
        assertThat(after.get("rate.admitted")).as("rates are shown").isNotNull();
        assertThat(after)
                .as("repair tasks of the last hour, by rule and status")
                .containsEntry("repairs." + rule + " DONE", "1");
        screenshot(Path.of("target", "dashboard.png"));
        assertThat(Path.of("target", "dashboard.png")).isNotEmptyFile();
    }

    @Test
    @DisplayName("a SKU split over Redis buckets shows each bucket's stock and counters, adding up to the SKU's")
    void bucketsOfAHotSku() throws Exception {
        long activityId = openBucketedSale(9, 3);
        // a buyer's bucket follows from the user id, and a bucket holds 3 units: four buyers, at most three per bucket,
        // so
        // no unit is transferred between buckets and each bucket's figures are known
        int[] perBucket = new int[3];
        int reserved = 0;
        for (long user = activityId * 10; reserved < 4; user++) {
            int bucket =
                    io.seckill.redis.SkuSlot.forUser(activityId, 1, 3, user).bucket();
            if (perBucket[bucket] < 3) {
                perBucket[bucket]++;
                reserved++;
                assertThat(reserve(user, activityId, 1).status()).isEqualTo(202);
            }
        }
        awaitSettled(activityId, 4);
        awaitOnBoard(activityId);
        Map<String, String> p = page();
        long stock = 0;
        long committed = 0;
        for (int b = 0; b < 3; b++) {
            String key = activityId + ".1." + b;
            assertThat(p).containsKeys("redis.stock." + key, "redis.committed." + key);
            stock += Long.parseLong(p.get("redis.stock." + key));
            committed += Long.parseLong(p.get("redis.committed." + key));
        }
        assertThat(stock)
                .as("bucket stocks add up to the SKU's")
                .isEqualTo(Long.parseLong(p.get("redis.stock." + activityId + ".1")))
                .isEqualTo(5);
        assertThat(committed).isEqualTo(4).isEqualTo(Long.parseLong(p.get("redis.committed." + activityId + ".1")));
    }

    @Test
    @DisplayName(
            "roles in two processes: the dashboard of an API-only instance shows the orders and rates the workers' "
                    + "process makes, and both instances with their roles")
    void fleetOfTwoProcesses() throws Exception {
        long activityId = openSale(100_000);
        AppProcess api = ApiOnlyChild.get();
        SaleClient buyers = api.client();
        // buyers keep reaching the API process; this JVM's order consumer makes their orders
        try (SteadyBuyers steady = SteadyBuyers.start(
                2,
                Duration.ofMillis(100),
                user -> buyers.reserve(
                        userToken(activityId * 100_000 + user),
                        activityId,
                        1,
                        UUID.randomUUID().toString()))) {
            steady.awaitMoreAdmitted(20, Duration.ofSeconds(30));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> count("SELECT count(*) FROM orders WHERE activity_id = ?", activityId) >= 10);
            String apiOnly = api.adminUrl() + "/dashboard.html#token=" + viewToken();
            Map<String, String> p = page(apiOnly);
            assertThat(p.get("fleet.source")).isEqualTo("fleet");
            assertThat(Integer.parseInt(p.get("fleet.instances")))
                    .as("this JVM's instance and the API process")
                    .isGreaterThanOrEqualTo(2);
            assertThat(p).as("the API process, by its roles").containsValue("api");
            assertThat(p.entrySet())
                    .as("an instance with the order consumer")
                    .anySatisfy(e -> assertThat(e.getKey()).startsWith("roles."))
                    .anySatisfy(e -> assertThat(e.getValue()).contains("order-consumer"));
            assertThat(Double.parseDouble(p.get("total.orders created")))
                    .as("orders made in the other process")
                    .isGreaterThanOrEqualTo(10);
            assertThat(Double.parseDouble(p.get("rate.orders created")))
                    .as("orders per second, from the other process")
                    .isGreaterThan(0);
            assertThat(Double.parseDouble(p.get("rate.admitted")))
                    .as("admissions per second")
                    .isGreaterThan(0);
            assertThat(Long.parseLong(p.get("orders." + activityId + ".CREATED")))
                    .isGreaterThanOrEqualTo(10);
        }
    }

    /** The page's numbers (data-k -> text) after a few seconds of refreshing in Chromium. */
    private Map<String, String> page() throws Exception {
        return page(url());
    }

    private static Map<String, String> page(String url) throws Exception {
        String dom = chromium("--dump-dom", url);
        Map<String, String> out = new TreeMap<>();
        Matcher m = VALUE.matcher(dom);
        while (m.find()) {
            out.put(m.group(1), m.group(2).trim().replace(",", ""));
        }
        return out;
    }

    private void screenshot(Path png) throws Exception {
        Files.createDirectories(png.toAbsolutePath().getParent());
        chromium("--screenshot=" + png.toAbsolutePath(), "--window-size=1280,1100", url());
    }

    /** The board lists the live sales as the registry has them, re-read once a second: until it lists this one. */
    private void awaitOnBoard(long activityId) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> client().get("/api/v1/admin/dashboard", viewToken())
                        .body()
                        .toString()
                        .contains("activity_id=" + activityId));
    }

    private String url() {
        return "http://127.0.0.1:" + operatorPlane.port() + "/dashboard.html#token=" + viewToken();
    }

    /**
     * Runs headless Chromium with a profile of its own (no lock shared with another Chromium) and a hard
     * bound: a browser that does not finish within 45 s is killed, never left hanging. Headless Chromium
     * now and then stalls at start-up on this machine; such a run is tried once more, and a second stall
     * fails the test.
     */
    private static String chromium(String... args) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            Path profile = Files.createTempDirectory("seckill-chromium");
            List<String> cmd = new ArrayList<>(List.of(
                    binary(),
                    "--headless=new",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--no-first-run",
                    "--user-data-dir=" + profile,
                    "--virtual-time-budget=4000"));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            java.util.concurrent.CompletableFuture<String> out =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try {
                            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
            boolean finished = p.waitFor(45, TimeUnit.SECONDS);
            if (!finished) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                if (attempt == 1) {
                    continue;
                }
            }
            assertThat(finished)
                    .as("chromium finished within 45 s, twice in a row")
                    .isTrue();
            assertThat(p.exitValue()).as("chromium exit").isZero();
            return out.join();
        }
    }

    private static String binary() {
        for (String b : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")) {
            if (Files.isExecutable(Path.of(b))) {
                return b;
            }
        }
        throw new IllegalStateException(
                "chromium is missing: install Debian's chromium package (apt-get install chromium); "
                        + "./seckill test installs it when it can");
    }
}
