package io.seckill.demo;

import io.seckill.cli.SaleClient;
import io.seckill.engines.AppProcess;
import io.seckill.engines.BrokerProcess;
import io.seckill.engines.EmbeddedEngines;
import io.seckill.engines.RedisClusterNodes;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The distributed shape of the product on loopback, beside the embedded engines' PostgreSQL and first
 * broker: a Redis Cluster of three masters with a replica each, a second broker under the same
 * NameServer, and application instances run as child processes ({@code serve}). With chaos, one of
 * each is lost mid-sale: an instance killed with SIGKILL and restarted, a broker killed and restarted on
 * its store, a Redis master stopped and its replica promoted.
 */
final class LoopbackCluster implements AutoCloseable {

    private final RedisClusterNodes redis;
    private final BrokerProcess brokerB;
    private final List<AppProcess> instances = new ArrayList<>();
    private final PrintStream console;

    private LoopbackCluster(RedisClusterNodes redis, BrokerProcess brokerB, PrintStream console) {
        this.redis = redis;
        this.brokerB = brokerB;
        this.console = console;
    }

    static LoopbackCluster start(EmbeddedEngines engines, PrintStream console) throws Exception {
        RedisClusterNodes redis = RedisClusterNodes.start(engines.home().resolve("redis-cluster"), 3, 1);
        try {
            BrokerProcess b = BrokerProcess.joining(
                    engines.home().resolve("rocketmq-b"),
                    BrokerProcess.locateBrokerHome(),
                    BrokerProcess.SHORT_DELAY_LEVELS,
                    "seckill-broker-b",
                    engines.namesrvAddress());
            b.start();
            return new LoopbackCluster(redis, b, console);
        } catch (Exception e) {
            redis.close();
            throw e;
        }
    }

    String redisSeeds() {
        return redis.seeds();
    }

    /** Starts {@code n} instances of the server jar's {@code serve} with these properties, at once; a buyer's client of each. */
    List<SaleClient> startInstances(Map<String, String> properties, int n, Path logDir) throws Exception {
        try (ExecutorService starting = Executors.newFixedThreadPool(n)) {
            List<Future<AppProcess>> started = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                started.add(starting.submit(() -> {
                    AppProcess app = new AppProcess(properties, logDir, AppProcess.locateServerJar());
                    app.start();
                    return app;
                }));
            }
            for (Future<AppProcess> f : started) {
                instances.add(f.get());
            }
        }
        return instances.stream().map(AppProcess::client).toList();
    }

    /** How long the chaos step keeps a master frozen without a failover. */
    private static final Duration FROZEN = Duration.ofSeconds(10);

    /**
     * One of each part lost mid-sale, within seconds of each other, while buyers keep buying: an instance
     * killed (SIGKILL), a broker killed (kill -9), a Redis master stopped and its replica promoted, another master
     * frozen (SIGSTOP) for {@link #FROZEN} with its replica forbidden to take over; then the frozen master resumes,
     * the broker restarts on its store and the instance on its port.
     */
    void chaos() {
        try {
            AppProcess victim = instances.getLast();
            long t0 = System.nanoTime();
            victim.kill();
            console.printf("%nchaos: app instance %s killed (SIGKILL); its buyers go to the others%n", victim.url());
            brokerB.kill();
            console.println("chaos: broker seckill-broker-b killed (kill -9); sends go to seckill-broker-a");
            List<RedisClusterNodes.Node> masters = redis.masters();
            RedisClusterNodes.Node master = masters.getFirst();
            int frozen = masters.get(1).port();
            int promoted = redis.failover(master.port());
            console.printf("chaos: Redis master :%d stopped, its replica :%d promoted%n", master.port(), promoted);
            // another master hangs with no replica to take over: its slots wait, the other masters' sales go on
            redis.failoverAllowed(frozen, false);
            long pid = redis.hang(frozen);
            long frozenAt = System.nanoTime();
            console.printf(
                    "chaos: Redis master :%d frozen (SIGSTOP) with failover forbidden: its slots wait for it%n",
                    frozen);
            Thread.sleep(FROZEN.toMillis());
            redis.resume(pid);
            redis.failoverAllowed(frozen, true);
            console.printf(
                    "chaos: Redis master :%d resumed after %.1f s frozen%n",
                    frozen, (System.nanoTime() - frozenAt) / 1e9);
            brokerB.start();
            console.println("chaos: broker seckill-broker-b restarted on its store; what it held is consumed now");
            victim.start();
            console.printf(
                    "chaos: app instance %s restarted, %.1f s after the kill%n",
                    victim.url(), (System.nanoTime() - t0) / 1e9);
        } catch (Exception e) {
            throw new IllegalStateException("chaos step failed: " + e.getMessage(), e);
        }
    }

    /** The entry's counters of the child instances (one that does not answer counts nothing). */
    AdmissionCounters admissionCounters() {
        AdmissionCounters sum = AdmissionCounters.NONE;
        for (AppProcess app : instances) {
            try {
                sum = sum.plus(
                        AdmissionCounters.parse(new SaleClient(app.managementUrl()).getText("/actuator/prometheus")));
            } catch (Exception e) {
                console.println("metrics of " + app.url() + " not readable now: " + e.getMessage());
            }
        }
        return sum;
    }

    /** Per node: Redis nodes' role, keys and commands; order and event messages stored per broker. */
    List<String> figures(DefaultMQProducer producer, String... topics) {
        List<String> out = new ArrayList<>();
        out.add("per node:");
        for (RedisClusterNodes.Node n : redis.nodes()) {
            out.add("  redis :" + n.port() + "  " + redis.figures(n));
        }
        for (String topic : topics) {
            Map<String, Long> perBroker = new TreeMap<>();
            try {
                for (MessageQueue q : producer.fetchPublishMessageQueues(topic)) {
                    perBroker.merge(q.getBrokerName(), producer.maxOffset(q), Long::sum);
                }
                out.add("  messages stored on " + topic + " by broker: " + perBroker);
            } catch (Exception e) {
                out.add("  messages on " + topic + ": unknown (" + e.getMessage() + ")");
            }
        }
        return out;
    }

    @Override
    public void close() throws Exception {
        for (AppProcess app : instances) {
            app.close();
        }
        try {
            brokerB.close();
        } finally {
            redis.close();
        }
    }
}
