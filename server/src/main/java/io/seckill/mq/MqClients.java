package io.seckill.mq;

import java.lang.management.ManagementFactory;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.seckill.config.SeckillProperties;

/** RocketMQ clients (classic remoting client, talking to the NameServer and brokers directly). */
@Configuration(proxyBeanMethods = false)
public class MqClients {

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    /**
     * This process among all instances: its pid (for a person reading a lease owner) and a random part
     * drawn at start - two containers both running as pid 1 on one host are still two owners.
     */
    static final String PROCESS = process(ManagementFactory.getRuntimeMXBean().getPid(), new SecureRandom());

    static String process(long pid, SecureRandom random) {
        byte[] b = new byte[6];
        random.nextBytes(b);
        return pid + "-" + HexFormat.of().formatHex(b);
    }

    /**
     * A name unique among every client and lease owner of every instance: RocketMQ instance names and
     * the owner tokens of leases (the outbox relay's, the scanners' and workers').
     */
    public static String instanceName(String role) {
        return role + "-" + PROCESS + "-" + INSTANCES.incrementAndGet();
    }

    @Bean(destroyMethod = "shutdown")
    DefaultMQProducer producer(SeckillProperties props) throws MQClientException {
        DefaultMQProducer p = new DefaultMQProducer("seckill-producer");
        p.setNamesrvAddr(props.mq().namesrv());
        p.setInstanceName(instanceName("producer"));
        p.setSendMsgTimeout((int) props.mq().sendTimeout().toMillis());
        p.setRetryTimesWhenSendFailed(1);
        p.setRetryTimesWhenSendAsyncFailed(1);
        p.start();
        return p;
    }

    /** A push consumer configured for this engine: bounded redelivery, then %DLQ%. */
    public static DefaultMQPushConsumer pushConsumer(SeckillProperties props, String group, String role) {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(props.mq().namesrv());
        c.setInstanceName(instanceName(role));
        c.setMaxReconsumeTimes(props.mq().maxReconsumeTimes());
        return c;
    }
}
