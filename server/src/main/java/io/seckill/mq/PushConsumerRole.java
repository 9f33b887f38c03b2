package io.seckill.mq;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.springframework.context.SmartLifecycle;

import io.seckill.config.SeckillProperties;

/** A RocketMQ push consumer that runs when its role is switched on, started and stopped with the application. */
public abstract class PushConsumerRole implements SmartLifecycle {

    private final String role;
    private final SeckillProperties props;
    private volatile DefaultMQPushConsumer consumer;
    private volatile boolean running;

    protected PushConsumerRole(String role, SeckillProperties props) {
        this.role = role;
        this.props = props;
    }

    /** The configured, subscribed consumer with its listener registered (not yet started). */
    protected abstract DefaultMQPushConsumer create() throws MQClientException;

    protected DefaultMQPushConsumer consumer() {
        return consumer;
    }

    @Override
    public void start() {
        if (!props.hasRole(role)) {
            return;
        }
        try {
            DefaultMQPushConsumer c = create();
            c.start();
            consumer = c;
        } catch (MQClientException e) {
            throw new IllegalStateException("cannot start the " + role + " consumer", e);
        }
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        if (consumer != null) {
            consumer.shutdown();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 100;
    }
}
