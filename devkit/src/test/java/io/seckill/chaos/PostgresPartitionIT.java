package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.seckill.cli.SaleClient;
import io.seckill.failpoint.Failpoint;
import io.seckill.failpoint.Failpoints;
import io.seckill.support.IntegrationTest;
import io.seckill.support.TcpProxy;
import io.seckill.support.TestEngines;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * The network between the application and PostgreSQL drops everything, then comes back for new
 * connections only - the ones open before stay silent for good, as after a failover. The pool's
 * timeouts (application.yml), shortened here so the test is quick, are what end the waits.
 */
@Tag("outage")
@TestPropertySource(
        properties = {
            "spring.datasource.hikari.data-source-properties.socketTimeout=3",
            "spring.datasource.hikari.data-source-properties.options=-c statement_timeout=2s "
                    + "-c idle_in_transaction_session_timeout=4s"
        })
class PostgresPartitionIT extends IntegrationTest {

    private static final TcpProxy PROXY = proxy();

    @DynamicPropertySource
    static void throughTheProxy(DynamicPropertyRegistry registry) {
        // the pool's own URL, bound onto the pool after spring.datasource.url (which the base class sets)
        registry.add(
                "spring.datasource.hikari.jdbc-url", () -> "jdbc:postgresql://127.0.0.1:" + PROXY.port() + "/postgres");
    }

    @Autowired
    DataSource dataSource;

    @Test
    @DisplayName("PostgreSQL partitioned away mid-transaction, its old connections silent for good: the order "
            + "transaction gives up on its socket instead of waiting forever, the consumer holds its batch, the lost "
            + "session's row locks go with it, and every reservation made during the partition becomes an order soon "
            + "after new connections get through; no redelivery used, every invariant holds")
    void partitionMidTransaction() throws Exception {
        assertThat(((HikariDataSource) dataSource).getJdbcUrl())
                .as("the pool goes through the proxy")
                .contains(":" + PROXY.port() + "/");
        long activityId = openSale(40);
        for (long u = 1; u <= 5; u++) {
            placeOrder(activityId, 1, u);
        }
        awaitSettled(activityId, 5);
        double heldBefore = counter("order.commit.held");
        double retriesBefore = counter("order.consume", "result", "retry");
        long firedBefore = Failpoints.fired().getOrDefault(Failpoint.AFTER_INBOX_INSERT.id(), 0L);

        // an order transaction is open - its inbox row written, the rest to come - when the partition begins
        Failpoints.arm(Failpoint.AFTER_INBOX_INSERT, "delay:1500*1");
        long admitted = 0;
        long healedAt;
        try {
            SaleClient.Response first = reserve(100, activityId, 1);
            assertThat(first.status()).as(first.body().toString()).isEqualTo(202);
            admitted++;
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> Failpoints.fired().getOrDefault(Failpoint.AFTER_INBOX_INSERT.id(), 0L) > firedBefore);
            PROXY.partition();
            for (long u = 101; u <= 110; u++) {
                SaleClient.Response r = reserve(u, activityId, 1);
                assertThat(r.status())
                        .as("admission needs no PostgreSQL: " + r.body())
                        .isEqualTo(202);
                admitted++;
            }
            // the partition lasts until the open transaction's socket gave up and the consumer holds its batch
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> counter("order.commit.held") > heldBefore);
        } finally {
            PROXY.heal();
            healedAt = System.nanoTime();
            Failpoints.disarmAll();
        }
        long expected = 5 + admitted;
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> count(
                                "SELECT count(*) FROM inventory_reservation WHERE activity_id = ? AND status = 'ORDER_CREATED'",
                                activityId)
                        == expected);
        // the broken connection is known within the 3 s socket timeout, the lost session ends 4 s after its last
        // statement, a held batch is tried again within seconds: not the kernel's quarter of an hour
        assertThat((System.nanoTime() - healedAt) / 1_000_000)
                .as("ms from the heal until every order was created")
                .isLessThan(20_000);
        assertThat(counter("order.commit.held"))
                .as("the consumer held its batch")
                .isGreaterThan(heldBefore);
        assertThat(counter("order.consume", "result", "retry"))
                .as("no redelivery used up")
                .isEqualTo(retriesBefore);
        awaitSettled(activityId, expected);
        assertInvariants(activityId, true);
    }

    private static TcpProxy proxy() {
        try {
            return new TcpProxy("127.0.0.1", TestEngines.get().postgresPort());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
