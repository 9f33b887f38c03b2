package io.seckill.cli;

import io.seckill.api.Tokens;
import io.seckill.json.Json;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The operator's runbook on the command line: each subcommand calls the admin API of a running
 * instance and prints its JSON answer. Exit status: 0 done, 1 the answer says something is wrong
 * (an invariant failed, a repair failed), 2 the call was refused or could not be made.
 */
final class AdminCommands {

    private AdminCommands() {}

    /** Where the instance is and how to prove we are an operator. */
    static final class Target {
        @Option(
                names = "--url",
                description = "the instance's operator listener, seckill.admin.port (default: $SECKILL_ADMIN_URL or "
                        + "${DEFAULT-VALUE})")
        String url = System.getenv().getOrDefault("SECKILL_ADMIN_URL", "http://127.0.0.1:8083");

        @Option(names = "--token", description = "admin bearer token (default: $SECKILL_ADMIN_TOKEN)")
        String token = System.getenv("SECKILL_ADMIN_TOKEN");

        @Option(
                names = "--admin-secret-file",
                description = "mint a token with the admin secret this file holds (default: $SECKILL_JWT_ADMIN_SECRET)")
        Path adminSecretFile;

        @Option(names = "--operator", description = "your name in the audit log (default: $USER)")
        String operator = System.getenv().getOrDefault("USER", "operator");

        String token() {
            if (token != null && !token.isBlank()) {
                return token;
            }
            String adminSecret = Secrets.fromFileOr(
                    adminSecretFile,
                    Secrets.fromEnvironment(System.getenv(), "seckill.jwt.admin-secret"),
                    "--admin-secret-file");
            if (adminSecret != null && adminSecret.length() >= 32) {
                return Tokens.admin(adminSecret, operator, Duration.ofMinutes(10));
            }
            throw new IllegalArgumentException(
                    "--token or --admin-secret-file (or $SECKILL_ADMIN_TOKEN / $SECKILL_JWT_ADMIN_SECRET) is required");
        }

        int call(String method, String path, Object body, boolean failWhenNotPass) {
            PrintStream out = System.out;
            try {
                SaleClient client = new SaleClient(url, url, url);
                SaleClient.Response r =
                        method.equals("GET") ? client.get(path, token()) : client.post(path, token(), body);
                out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(r.body()));
                if (r.status() >= 400) {
                    System.err.println("refused: HTTP " + r.status() + " " + r.code());
                    return 2;
                }
                return failWhenNotPass && Boolean.FALSE.equals(r.body().get("pass")) ? 1 : 0;
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            } catch (Exception e) {
                System.err.println("cannot reach " + url + ": " + e);
                return 2;
            }
        }
    }

    @Command(
            name = "inspect",
            mixinStandardHelpOptions = true,
            description =
                    "Every source's evidence about any business id (reservation, request, message, order, payment,"
                            + " task), in the authority order of the runbook.")
    static final class Inspect implements Callable<Integer> {
        @Mixin
        Target target;

        @Parameters(index = "0", description = "any business id")
        String id;

        @Override
        public Integer call() {
            return target.call("GET", "/api/v1/admin/inspect/" + id, null, false);
        }
    }

    @Command(
            name = "freeze",
            mixinStandardHelpOptions = true,
            description = "Take an object out of automation: reservation MANUAL_REVIEW, tasks MANUAL, its order held.")
    static final class Freeze implements Callable<Integer> {
        @Mixin
        Target target;

        @Parameters(index = "0", description = "any business id")
        String id;

        @Option(names = "--reason", required = true, description = "why (goes to the audit log)")
        String reason;

        @Override
        public Integer call() {
            return target.call("POST", "/api/v1/admin/freeze/" + id, Map.of("reason", reason), false);
        }
    }

    @Command(
            name = "repair",
            mixinStandardHelpOptions = true,
            description = "Run one standard action as an idempotent repair task: release-hold | compensate | "
                    + "rebuild-projection | refund.")
    static final class Repair implements Callable<Integer> {
        @Mixin
        Target target;

        @Parameters(index = "0", description = "any business id")
        String id;

        @Option(
                names = "--action",
                required = true,
                description = "release-hold | compensate | rebuild-projection | refund")
        String action;

        @Option(names = "--reason", required = true, description = "why (goes to the audit log)")
        String reason;

        @Override
        public Integer call() {
            return target.call("POST", "/api/v1/admin/repair/" + id, Map.of("action", action, "reason", reason), false);
        }
    }

    @Command(
            name = "invariants",
            mixinStandardHelpOptions = true,
            description = "Check every invariant of the live sales (or one); exit status 1 on any violation.")
    static final class Invariants implements Callable<Integer> {
        @Mixin
        Target target;

        @Option(names = "--activity", description = "only this activity")
        Long activity;

        @Override
        public Integer call() {
            return target.call(
                    "GET",
                    "/api/v1/admin/invariants" + (activity == null ? "" : "?activity_id=" + activity),
                    null,
                    true);
        }
    }

    @Command(name = "reconcile", mixinStandardHelpOptions = true, description = "Run a reconciliation now.")
    static final class Reconcile implements Callable<Integer> {
        @Mixin
        Target target;

        @Option(names = "--activity", description = "only this activity")
        Long activity;

        @Option(
                names = "--watermark-seconds",
                description = "judge only data older than this (default: the instance's)")
        Long watermarkSeconds;

        @Override
        public Integer call() {
            Map<String, Object> q = new LinkedHashMap<>();
            if (activity != null) {
                q.put("activity_id", activity);
            }
            if (watermarkSeconds != null) {
                q.put("watermark_seconds", watermarkSeconds);
            }
            StringBuilder path = new StringBuilder("/api/v1/admin/reconcile");
            q.forEach((k, v) -> path.append(path.indexOf("?") < 0 ? '?' : '&')
                    .append(k)
                    .append('=')
                    .append(v));
            return target.call("POST", path.toString(), null, false);
        }
    }

    @Command(
            name = "adjust-stock",
            mixinStandardHelpOptions = true,
            description =
                    "Change a SKU's stock mid-sale through the ledger, in PostgreSQL and Redis, once per adjustment id.")
    static final class AdjustStock implements Callable<Integer> {
        @Mixin
        Target target;

        @Parameters(index = "0", description = "activity id")
        long activity;

        @Parameters(index = "1", description = "sku id")
        long sku;

        @Parameters(index = "2", description = "signed number of units, e.g. +5 or -3")
        String delta;

        @Option(names = "--reason", required = true, description = "why (goes to the audit log)")
        String reason;

        @Option(names = "--id", description = "adjustment id (UUID); repeat a failed call with the same id")
        String id;

        @Override
        public Integer call() {
            int n;
            try {
                n = Integer.parseInt(delta.startsWith("+") ? delta.substring(1) : delta);
            } catch (NumberFormatException e) {
                System.err.println("delta: must be a signed whole number, got '" + delta + "'");
                return 2;
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("delta", n);
            body.put("reason", reason);
            body.put("adjustment_id", id == null ? java.util.UUID.randomUUID().toString() : id);
            System.err.println("adjustment id " + body.get("adjustment_id") + " (repeat with --id to retry safely)");
            return target.call(
                    "POST", "/api/v1/admin/activities/" + activity + "/skus/" + sku + "/adjust-stock", body, false);
        }
    }

    @Command(
            name = "close-out",
            mixinStandardHelpOptions = true,
            description =
                    "Stop admission, drain the pipeline, reconcile a last time, report the sale, expire its keys.")
    static final class CloseOut implements Callable<Integer> {
        @Mixin
        Target target;

        @Parameters(index = "0", description = "activity id")
        long activity;

        @Option(names = "--reason", required = true, description = "why (goes to the audit log)")
        String reason;

        @Option(names = "--drain-seconds", description = "how long to wait for the pipeline (default ${DEFAULT-VALUE})")
        long drainSeconds = 60;

        @Override
        public Integer call() {
            return target.call(
                    "POST",
                    "/api/v1/admin/activities/" + activity + "/close-out?drain_seconds=" + drainSeconds,
                    Map.of("reason", reason),
                    true);
        }
    }

    @Command(
            name = "dlq",
            mixinStandardHelpOptions = true,
            description = "List or replay a consumer group's dead letters (replay: re-sent with their original ids, "
                    + "letters of objects under a manual hold left in the DLQ, an audit row).")
    static final class Dlq implements Callable<Integer> {
        @Mixin
        Target target;

        @Parameters(index = "0", description = "list | replay")
        String action;

        @Option(names = "--group", description = "consumer group (default: the order consumer's)")
        String group;

        @Option(names = "--max", description = "at most this many letters (default ${DEFAULT-VALUE})")
        int max = 1000;

        @Option(names = "--reason", description = "why (replay: required, goes to the audit log)")
        String reason;

        @Override
        public Integer call() {
            switch (action) {
                case "list" -> {
                    return target.call(
                            "GET",
                            "/api/v1/admin/dlq?max=" + max
                                    + (group == null
                                            ? ""
                                            : "&group=" + URLEncoder.encode(group, StandardCharsets.UTF_8)),
                            null,
                            false);
                }
                case "replay" -> {
                    Map<String, Object> body = new LinkedHashMap<>();
                    body.put("max", max);
                    if (group != null) {
                        body.put("group", group);
                    }
                    body.put("reason", reason);
                    return target.call("POST", "/api/v1/admin/dlq/replay", body, false);
                }
                default -> {
                    System.err.println("action: must be list or replay, got '" + action + "'");
                    return 2;
                }
            }
        }
    }
}
