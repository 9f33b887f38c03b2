package io.seckill.mq;

import io.seckill.config.SeckillProperties;
import io.seckill.worker.RoleLifecycle;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;

/** A RocketMQ push consumer that runs when its role is switched on, started and stopped with the application. */
public abstract class PushConsumerRole extends RoleLifecycle {

    private volatile DefaultMQPushConsumer consumer;

    protected PushConsumerRole(String role, SeckillProperties props) {
        super(role, props);
    }

    /** The configured, subscribed consumer with its listener registered (not yet started). */
    protected abstract DefaultMQPushConsumer create() throws MQClientException;

    protected DefaultMQPushConsumer consumer() {
        return consumer;
    }

    @Override
    protected void startRole() {
        try {
            DefaultMQPushConsumer c = create();
            c.start();
            consumer = c;
        } catch (MQClientException e) {
            throw new IllegalStateException("cannot start the " + role() + " consumer", e);
        }
    }

    @Override
    protected void stopRole() {
        if (consumer != null) {
            consumer.shutdown();
        }
    }
}
