package io.seckill.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.engines.BrokerProcess;
import io.seckill.mq.MqClients;
import io.seckill.support.TcpProxy;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The network between the producer and a broker drops everything, then comes back for new connections
 * only: the connection open before stays silent for good. A broker of its own, which tells clients to
 * connect to 127.0.0.2, where a relay to it listens.
 */
@Tag("outage")
class BrokerPartitionIT {

    private static final String TOPIC = "SECKILL_PARTITION_TEST";
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(3);

    @Test
    @DisplayName("the broker partitioned away, the producer's connection silent for good: asynchronous sends (as the "
            + "order requests are sent) fail meanwhile, and after the heal the producer leaves the silent connection "
            + "and sends again within 20 s")
    void producerLeavesASilentConnection() throws Exception {
        Path home = Files.createTempDirectory("seckill-broker-partition");
        try (BrokerProcess broker = new BrokerProcess(
                        home, BrokerProcess.locateBrokerHome(), BrokerProcess.SHORT_DELAY_LEVELS)
                .advertising("127.0.0.2")) {
            broker.start();
            try (TcpProxy relay = new TcpProxy(
                    InetAddress.getByName("127.0.0.2"), broker.brokerPort(), "127.0.0.1", broker.brokerPort())) {
                DefaultMQProducer producer = MqClients.producer(broker.namesrvAddress(), SEND_TIMEOUT);
                try {
                    assertThat(send(producer).get(30, TimeUnit.SECONDS).getSendStatus())
                            .isEqualTo(SendStatus.SEND_OK);

                    relay.partition();
                    CompletableFuture<SendResult> during = send(producer);
                    assertThat(during).as("a send while partitioned").failsWithin(Duration.ofSeconds(30));

                    relay.heal();
                    long healed = System.nanoTime();
                    Awaitility.await()
                            .atMost(Duration.ofSeconds(90))
                            .pollInterval(Duration.ofMillis(500))
                            .ignoreExceptions()
                            .until(() ->
                                    send(producer).get(30, TimeUnit.SECONDS).getSendStatus() == SendStatus.SEND_OK);
                    long sentAfterMs = (System.nanoTime() - healed) / 1_000_000;
                    LoggerFactory.getLogger(BrokerPartitionIT.class)
                            .info("broker.partition sent_after_heal_ms={}", sentAfterMs);
                    assertThat(sentAfterMs)
                            .as("ms from the heal until a send went through")
                            .isBetween(0L, 20_000L);
                } finally {
                    producer.shutdown();
                }
            }
        }
    }

    /** One asynchronous send, as the order requests are sent: its result, or its failure. */
    private static CompletableFuture<SendResult> send(DefaultMQProducer producer) throws Exception {
        CompletableFuture<SendResult> done = new CompletableFuture<>();
        producer.send(
                new Message(TOPIC, "partition".getBytes(StandardCharsets.UTF_8)),
                new SendCallback() {
                    @Override
                    public void onSuccess(SendResult result) {
                        done.complete(result);
                    }

                    @Override
                    public void onException(Throwable e) {
                        done.completeExceptionally(e);
                    }
                },
                SEND_TIMEOUT.toMillis());
        return done;
    }
}
