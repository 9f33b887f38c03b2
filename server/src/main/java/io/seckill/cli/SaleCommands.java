package io.seckill.cli;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * A sale's life on the command line, through the admin API of a running instance: create, warm (Redis loaded from
 * PostgreSQL), open, close, and its inventory in both systems. Close-out is {@code seckill close-out}. Exit status as
 * the runbook commands': 0 done, 2 refused (the problem document is printed) or not reachable.
 */
@Command(
        name = "sale",
        mixinStandardHelpOptions = true,
        description = "Create, warm, open and close a sale; show its inventory.",
        subcommands = {
            SaleCommands.Create.class,
            SaleCommands.Warm.class,
            SaleCommands.Open.class,
            SaleCommands.Close.class,
            SaleCommands.Inventory.class
        })
final class SaleCommands implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(System.err);
        return 2;
    }

    private static final String ACTIVITIES = "/api/v1/admin/activities";

    @Command(
            name = "create",
            mixinStandardHelpOptions = true,
            description =
                    "Create a sale (DRAFT): from --file (the admin API's body, JSON or YAML) or from the options.")
    static final class Create implements Callable<Integer> {
        @Mixin
        AdminCommands.Target target;

        @Option(
                names = "--file",
                description =
                        "the body as JSON, or YAML for a name ending .yaml/.yml (activity_id, name, starts_at, ends_at, ...)")
        Path file;

        @Option(names = "--activity", description = "the sale's id (a positive integer)")
        Long activity;

        @Option(names = "--name", description = "the sale's name")
        String name;

        @Option(names = "--starts-at", description = "ISO-8601 instant, e.g. 2026-12-12T12:00:00Z")
        String startsAt;

        @Option(names = "--ends-at", description = "ISO-8601 instant, after --starts-at")
        String endsAt;

        @Option(
                names = "--business-deadline-seconds",
                defaultValue = "300",
                description = "how long an admitted reservation may take to become an order (default ${DEFAULT-VALUE})")
        int businessDeadlineSeconds;

        @Option(
                names = "--payment-timeout-seconds",
                defaultValue = "900",
                description = "how long an order waits for its payment (default ${DEFAULT-VALUE})")
        int paymentTimeoutSeconds;

        @Option(
                names = "--sku",
                description = "a SKU as id:price:stock[:buckets], e.g. 90001:19.90:1000:4 (repeatable)")
        List<String> skus = new ArrayList<>();

        @Override
        public Integer call() {
            Object body;
            try {
                body = file != null ? SaleFile.read(file) : fromOptions();
            } catch (IOException | RuntimeException e) {
                System.err.println((file != null ? "--file " + file + ": " : "") + e.getMessage());
                return 2;
            }
            return target.call("POST", ACTIVITIES, body, false);
        }

        private Map<String, Object> fromOptions() {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("activity_id", activity);
            body.put("name", name);
            body.put("starts_at", startsAt);
            body.put("ends_at", endsAt);
            body.put("business_deadline_seconds", businessDeadlineSeconds);
            body.put("payment_timeout_seconds", paymentTimeoutSeconds);
            List<Map<String, Object>> out = new ArrayList<>();
            for (String s : skus) {
                out.add(sku(s));
            }
            body.put("skus", out);
            return body;
        }

        /** {@code id:price:stock[:buckets]}; a malformed one is refused naming the option and the value. */
        static Map<String, Object> sku(String spec) {
            String[] p = spec.split(":");
            if (p.length < 3 || p.length > 4) {
                throw new IllegalArgumentException("--sku '" + spec + "': expected id:price:stock[:buckets]");
            }
            try {
                Map<String, Object> sku = new LinkedHashMap<>();
                sku.put("sku_id", Long.parseLong(p[0]));
                sku.put("price", new BigDecimal(p[1]));
                sku.put("stock", Integer.parseInt(p[2]));
                if (p.length == 4) {
                    sku.put("buckets", Integer.parseInt(p[3]));
                }
                return sku;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--sku '" + spec + "': id, price, stock and buckets are numbers");
            }
        }
    }

    /** A call about one sale: {@code POST /api/v1/admin/activities/{id}/<step>}, or a GET for what it shows. */
    abstract static class Step implements Callable<Integer> {
        @Mixin
        AdminCommands.Target target;

        @Parameters(index = "0", description = "the sale's id")
        long activity;

        abstract String step();

        String method() {
            return "POST";
        }

        @Override
        public Integer call() {
            boolean post = method().equals("POST");
            return target.call(method(), ACTIVITIES + "/" + activity + "/" + step(), post ? Map.of() : null, false);
        }
    }

    @Command(
            name = "warm",
            mixinStandardHelpOptions = true,
            description = "Load the sale's stock into Redis from PostgreSQL (again while not open).")
    static final class Warm extends Step {
        @Override
        String step() {
            return "warm";
        }
    }

    @Command(
            name = "open",
            mixinStandardHelpOptions = true,
            description =
                    "Open the sale to buyers (refused unless Redis equals PostgreSQL and the broker takes orders).")
    static final class Open extends Step {
        @Override
        String step() {
            return "open";
        }
    }

    @Command(
            name = "close",
            mixinStandardHelpOptions = true,
            description = "Close the sale to new buyers (then seckill close-out once its orders have settled).")
    static final class Close extends Step {
        @Override
        String step() {
            return "close";
        }
    }

    @Command(
            name = "inventory",
            mixinStandardHelpOptions = true,
            description = "The sale's inventory: PostgreSQL's columns beside Redis's counters, per SKU.")
    static final class Inventory extends Step {
        @Override
        String step() {
            return "inventory";
        }

        @Override
        String method() {
            return "GET";
        }
    }
}
