package io.seckill.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The alert rules are valid, fire and stay silent where their unit tests say (promtool, from
 * Debian's prometheus package - ./seckill test installs it when it can), and every alert links a
 * runbook entry that exists.
 */
class AlertRulesTest {

    static final Path RULES = ops().resolve("seckill-alerts.yml");
    private static final Set<String> PROMQL = Set.of(
            "max",
            "min",
            "sum",
            "increase",
            "delta",
            "rate",
            "abs",
            "or",
            "and",
            "unless",
            "by",
            "without",
            "vector",
            "humanize",
            "histogram_quantile",
            "count_over_time",
            "absent");

    @Test
    @DisplayName("promtool check rules and promtool test rules pass on ops/prometheus")
    void promtoolChecksAndTestsTheRules() throws Exception {
        assertThat(run(promtool(), "check", "rules", RULES.toString())).contains("SUCCESS");
        assertThat(run(
                        promtool(),
                        "test",
                        "rules",
                        ops().resolve("seckill-alerts.test.yml").toString()))
                .contains("SUCCESS");
    }

    @Test
    @DisplayName("every alert has a severity and a runbook link to a heading of docs/ALERTS.md, and is unit-tested")
    void runbooksAndTests() throws IOException {
        String rules = Files.readString(RULES);
        String tests = Files.readString(ops().resolve("seckill-alerts.test.yml"));
        String alerts = Files.readString(ops().getParent().getParent().resolve("docs/ALERTS.md"));
        Matcher m = Pattern.compile(
                        "- alert: (\\w+)\\n(?:.*\\n)*?\\s+labels: \\{severity: (warning|critical)}\\n(?:.*\\n)*?"
                                + "\\s+runbook: docs/ALERTS.md#(\\w+)")
                .matcher(rules);
        int n = 0;
        while (m.find()) {
            n++;
            assertThat(alerts.toLowerCase()).as(m.group(1)).contains("## " + m.group(3));
            assertThat(tests).as(m.group(1) + " has a unit test").contains("alertname: " + m.group(1) + "\n");
        }
        assertThat(n).isEqualTo(rules.split("- alert: ", -1).length - 1).isGreaterThanOrEqualTo(15);
    }

    /** The metric names the rules read. */
    static Set<String> metrics() throws IOException {
        Set<String> out = new TreeSet<>();
        Matcher expr = Pattern.compile("expr: (.*)").matcher(Files.readString(RULES));
        while (expr.find()) {
            out.addAll(metricsOf(expr.group(1)));
        }
        return out;
    }

    /** The metric names one PromQL expression reads (label matchers, ranges, grouping and strings left out). */
    static Set<String> metricsOf(String promql) {
        Set<String> out = new TreeSet<>();
        String bare = promql.replaceAll("\\{[^}]*}", "")
                .replaceAll("\\[[^]]*]", "")
                .replaceAll("\\b(by|without)\\s*\\([^)]*\\)", "")
                .replaceAll("\"[^\"]*\"", "");
        Matcher name = Pattern.compile("\\b([a-z][a-z0-9_]*)\\b").matcher(bare);
        while (name.find()) {
            if (name.group(1).contains("_") && !PROMQL.contains(name.group(1))) {
                out.add(name.group(1));
            }
        }
        return out;
    }

    static Path ops() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("ops/prometheus"))) {
                return dir.resolve("ops/prometheus");
            }
        }
        throw new IllegalStateException(
                "ops/prometheus not found above " + Path.of("").toAbsolutePath());
    }

    private static String promtool() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, "promtool"))) {
                return Path.of(dir, "promtool").toString();
            }
        }
        throw new IllegalStateException("promtool is missing: install Debian's prometheus package "
                + "(apt-get install prometheus); ./seckill test installs it when it can");
    }

    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of(cmd)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + "\n" + out).isZero();
        return out;
    }
}
