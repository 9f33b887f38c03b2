package io.seckill.demo;

import io.micrometer.core.instrument.MeterRegistry;
import io.seckill.SeckillApplication;
import io.seckill.api.OperatorPlane;
import io.seckill.api.TokenDecoders;
import io.seckill.cli.SaleClient;
import io.seckill.config.SeckillProperties;
import io.seckill.engines.EmbeddedEngines;
import io.seckill.entry.AdmissionEntry;
import io.seckill.failpoint.Failpoint;
import io.seckill.paysim.PaySim;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code seckill demo}: real PostgreSQL, Redis and RocketMQ embedded, the application on top, a
 * sale driven over HTTP by simulated buyers, then a report with every invariant as PASS/FAIL.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description =
                "Start embedded engines and the app, run a flash sale, print a report (exit 1 if an invariant fails).")
public final class DemoCommand implements Callable<Integer> {

    @Option(names = "--users", description = "simulated buyers (default 20,000; 6,000 with --cluster)")
    Integer users;

    @Option(names = "--skus", description = "SKUs in the sale (default ${DEFAULT-VALUE})")
    int skus = 2;

    @Option(names = "--stock", description = "units per SKU (default ${DEFAULT-VALUE})")
    int stock = 250;

    @Option(
            names = "--buckets",
            description = "Redis buckets per SKU: a hot SKU's stock split over slots that still sell "
                    + "as one (default ${DEFAULT-VALUE})")
    int buckets = 2;

    @Option(
            names = "--concurrency",
            description = "concurrent HTTP clients (default 64; 16 with --cluster, whose nine "
                    + "engine processes and three instances share the same cores)")
    Integer concurrency;

    @Option(names = "--port", description = "HTTP port of the app (default ${DEFAULT-VALUE}; 0 = any)")
    int port = 8080;

    @Option(names = "--serve", description = "keep the engines and the API running on localhost after the report")
    boolean serve;

    @Option(
            names = "--cluster",
            description = "the distributed shape on loopback: a Redis Cluster (3 masters, a replica "
                    + "each), two brokers, three app instances with the buyers spread over them; with --chaos one instance, one "
                    + "broker and one Redis master are lost mid-sale")
    boolean cluster;

    @Option(
            names = "--chaos",
            description = "arm failpoints at random (by probability) during the sale, then check every"
                    + " invariant after recovery")
    boolean chaos;

    /** What --chaos arms: each failpoint's chaos action (every step fails now and then; no process halt). */
    static Map<String, String> chaos() {
        Map<String, String> out = new java.util.TreeMap<>();
        for (Failpoint f : Failpoint.values()) {
            out.put(f.id(), f.chaosAction());
        }
        return out;
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        Path logFile = DemoLogs.toFile();
        out.println(
                cluster
                        ? "seckill demo --cluster: starting PostgreSQL 17, a Redis Cluster (3 masters, a replica each), "
                                + "RocketMQ 5.3.3 (a NameServer, two brokers), three app instances and the payment channel simulator..."
                        : "seckill demo: starting PostgreSQL 17, Redis 7, RocketMQ 5.3.3 (embedded, loopback) and the payment"
                                + " channel simulator...");
        out.println("application logs: " + logFile);
        String callbackSecret = "demo-callback-" + UUID.randomUUID() + UUID.randomUUID();
        try (EmbeddedEngines engines = EmbeddedEngines.start(true);
                PaySim sim = PaySim.start(0, callbackSecret);
                LoopbackCluster nodes = cluster ? LoopbackCluster.start(engines, out) : null) {
            // the channel takes money after a close, and one paid payment in ten never calls back: the engine
            // finds those in the channel's statement
            sim.knobs(PaySim.Knobs.NORMAL.payingAfterClose().losingCallbacks(10));
            Map<String, String> shared = new HashMap<>(engines.springProperties());
            shared.put("seckill.payment.channel-url", sim.url());
            shared.put("seckill.payment.callback-secret", callbackSecret);
            shared.put("seckill.payment.statement.interval", "2s");
            shared.put("seckill.payment.statement.delay", "2s");
            String userSecret = "demo-user-" + UUID.randomUUID() + UUID.randomUUID();
            String adminSecret = "demo-admin-" + UUID.randomUUID() + UUID.randomUUID();
            shared.put("seckill.jwt.user-secret", userSecret);
            shared.put("seckill.jwt.admin-secret", adminSecret);
            shared.put("seckill.ids.keys.1", "demo-ids-" + UUID.randomUUID() + UUID.randomUUID());
            if (nodes != null) {
                shared.put("seckill.redis-cluster", nodes.redisSeeds());
            }
            Map<String, Object> props = new HashMap<>(shared);
            props.put("server.port", Integer.toString(port));
            props.put("server.address", "127.0.0.1");
            // buyers reserve through the lean admission entry, the rest of the API on the server port
            props.put("seckill.admission.entry-port", "0");
            // the operator's plane (admin API, dashboard) on a listener of its own
            props.put("seckill.admin.port", "0");
            props.putAll(DemoLogs.springProperties(logFile));
            try (ConfigurableApplicationContext app = new SpringApplicationBuilder(SeckillApplication.class)
                    .properties(props)
                    .run()) {
                int actualPort =
                        ((WebServerApplicationContext) app).getWebServer().getPort();
                String apiUrl = "http://127.0.0.1:" + actualPort;
                String entryUrl =
                        "http://127.0.0.1:" + app.getBean(AdmissionEntry.class).port();
                String adminUrl =
                        "http://127.0.0.1:" + app.getBean(OperatorPlane.class).port();
                List<SaleClient> instances = new ArrayList<>(List.of(new SaleClient(apiUrl, entryUrl, adminUrl)));
                out.println("API " + apiUrl + ", admission entry " + entryUrl + ", operator's listener " + adminUrl);
                if (nodes != null) {
                    // the channel calls back one stable address (a load balancer's, in production): here the first
                    // instance
                    shared.put("seckill.payment.notify-url", apiUrl + "/api/v1/payments/callbacks/paysim");
                    Path instanceLogs = logFile.resolveSibling(
                            logFile.getFileName().toString().replace(".log", "-instances"));
                    instances.addAll(nodes.startInstances(shared, 2, instanceLogs));
                    out.println("app instances: "
                            + instances.stream().map(SaleClient::base).toList() + " (their logs: " + instanceLogs
                            + ")");
                }
                SaleScenario scenario =
                        new SaleScenario(app, instances, userSecret, adminSecret, chaos ? chaos() : Map.of(), sim, out);
                if (nodes != null) {
                    SeckillProperties.Mq mq =
                            app.getBean(SeckillProperties.class).mq();
                    DefaultMQProducer producer = app.getBean(DefaultMQProducer.class);
                    scenario.nodeFigures(() -> nodes.figures(producer, mq.orderRequestTopic(), mq.orderEventTopic()));
                    MeterRegistry meters = app.getBean(MeterRegistry.class);
                    scenario.admissionCounters(
                            () -> AdmissionCounters.of(meters).plus(nodes.admissionCounters()));
                    if (chaos) {
                        scenario.onMidSale(nodes::chaos);
                    }
                }
                int buyers = users != null ? users : cluster ? 6_000 : 20_000;
                out.printf(
                        "the sale is open: %d buyers for %d SKUs x %d units (%d Redis buckets each)%n",
                        buyers, skus, stock, buckets);
                SaleScenario.Report report = scenario.run(
                        1001,
                        new SaleScenario.Shape(skus, stock, buckets, buyers),
                        concurrency != null ? concurrency : cluster ? 16 : 64,
                        Duration.ofSeconds(120));
                report.print(out);
                out.println("application logs: " + logFile);
                if (serve) {
                    out.printf(
                            "%nAPI serving on http://127.0.0.1:%d (admin and user tokens are printed above); Ctrl-C to stop.%n",
                            actualPort);
                    out.println(
                            "admin token: " + io.seckill.api.Tokens.admin(adminSecret, "demo", Duration.ofHours(12)));
                    out.println("user 1 token: " + io.seckill.api.Tokens.user(userSecret, 1, Duration.ofHours(12)));
                    out.println("a token for any buyer: SECKILL_JWT_USER_SECRET=" + userSecret
                            + " ./seckill token --user <id>");
                    out.println("operator's listener (admin API, dashboard): " + adminUrl);
                    out.printf(
                            "live dashboard (a view-only token): %s/dashboard.html#token=%s%n",
                            adminUrl,
                            io.seckill.api.Tokens.operator(
                                    adminSecret, "demo", TokenDecoders.VIEW_SCOPE, Duration.ofHours(12)));
                    new CountDownLatch(1).await();
                }
                return report.allPass() ? 0 : 1;
            }
        }
    }
}
