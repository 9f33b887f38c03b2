package io.seckill.mq;

import java.lang.management.ManagementFactory;
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

    /** Each client in one JVM gets its own instance name, so several app contexts can share a JVM. */
    public static String instanceName(String role) {
        return role + "-" + ManagementFactory.getRuntimeMXBean().getPid() + "-" + INSTANCES.incrementAndGet();
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
