package io.seckill.mq;

import io.seckill.config.SeckillProperties;
import java.lang.management.ManagementFactory;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.SerializeType;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** RocketMQ clients (classic remoting client, talking to the NameServer and brokers directly). */
@Configuration(proxyBeanMethods = false)
public class MqClients {

    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /**
     * Each client's heartbeat to every broker, a synchronous call: one that times out closes its connection.
     * Sends are asynchronous and a timed-out one does not, so the heartbeat is what leaves a connection a
     * partition or a failover made silent - every 10 s rather than the client's 30 s.
     */
    static final int HEARTBEAT_MS = 10_000;

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

    /**
     * RocketMQ's request and response headers in its compact binary encoding instead of JSON, for every
     * client of this process (the broker answers each request in the encoding it came in). With JSON, the
     * client's default, every send's header is written through fastjson and every answer's read back the
     * same way, a share of the sending threads' CPU that grows with the sends. RocketMQ reads the setting once,
     * when its remoting classes load, so the executables call this first; an operator's own
     * {@code -Drocketmq.serialize.type} or {@code ROCKETMQ_SERIALIZE_TYPE} is left as it is.
     */
    public static void useBinaryHeaders() {
        if (System.getProperty(RemotingCommand.SERIALIZE_TYPE_PROPERTY) == null
                && System.getenv(RemotingCommand.SERIALIZE_TYPE_ENV) == null) {
            System.setProperty(RemotingCommand.SERIALIZE_TYPE_PROPERTY, SerializeType.ROCKETMQ.name());
        }
    }

    @Bean(destroyMethod = "shutdown")
    DefaultMQProducer producer(SeckillProperties props) throws MQClientException {
        return producer(props.mq().namesrv(), props.mq().sendTimeout(), credentials(props.mq()));
    }

    /**
     * What every request of a client carries to the brokers: its ACL signature ({@code seckill.mq.access-key} and
     * {@code secret-key}, RocketMQ's access control), or null when the brokers ask for none.
     */
    public static RPCHook credentials(SeckillProperties.Mq mq) {
        return mq.authenticated() ? credentials(mq.accessKey(), mq.secretKey()) : null;
    }

    /** The ACL signature of {@code accessKey} with {@code secretKey}, as {@link #credentials(SeckillProperties.Mq)}. */
    public static RPCHook credentials(String accessKey, String secretKey) {
        return new Signed(accessKey, secretKey);
    }

    /**
     * RocketMQ's ACL signature on every request. The broker checks it against the request's fields as it decoded
     * them, and for the administrative requests (creating a topic or a group, reading offsets) the compact binary
     * header encoding ({@link #useBinaryHeaders}) decodes to fields other than the ones signed: the broker answers
     * "check signature failed". So every request but the hot ones - sends and pulls, whose binary headers sign
     * and verify alike (BrokerAclIT) - goes in RocketMQ's JSON encoding when signed.
     */
    static final class Signed implements RPCHook {

        private static final Set<Integer> BINARY = Set.of(
                RequestCode.SEND_MESSAGE,
                RequestCode.SEND_MESSAGE_V2,
                RequestCode.SEND_BATCH_MESSAGE,
                RequestCode.PULL_MESSAGE);

        private final AclClientRPCHook acl;

        Signed(String accessKey, String secretKey) {
            this.acl = new AclClientRPCHook(new SessionCredentials(accessKey, secretKey));
        }

        @Override
        public void doBeforeRequest(String remoteAddr, RemotingCommand request) {
            if (!BINARY.contains(request.getCode())) {
                request.setSerializeTypeCurrentRPC(SerializeType.JSON);
            }
            acl.doBeforeRequest(remoteAddr, request);
        }

        @Override
        public void doAfterResponse(String remoteAddr, RemotingCommand request, RemotingCommand response) {
            acl.doAfterResponse(remoteAddr, request, response);
        }
    }

    /** The producer every role of this process sends with, started, for brokers that ask for no credentials. */
    public static DefaultMQProducer producer(String namesrv, Duration sendTimeout) throws MQClientException {
        return producer(namesrv, sendTimeout, null);
    }

    /** The producer every role of this process sends with, started; {@code credentials} as {@link #credentials}. */
    public static DefaultMQProducer producer(String namesrv, Duration sendTimeout, RPCHook credentials)
            throws MQClientException {
        DefaultMQProducer p = new DefaultMQProducer("seckill-producer", credentials);
        p.setNamesrvAddr(namesrv);
        p.setInstanceName(instanceName("producer"));
        p.setHeartbeatBrokerInterval(HEARTBEAT_MS);
        p.setSendMsgTimeout((int) sendTimeout.toMillis());
        p.setRetryTimesWhenSendFailed(1);
        p.setRetryTimesWhenSendAsyncFailed(1);
        p.start();
        return p;
    }

    /** A push consumer configured for this engine: bounded redelivery, then %DLQ%. */
    public static DefaultMQPushConsumer pushConsumer(SeckillProperties props, String group, String role) {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group, credentials(props.mq()));
        c.setNamesrvAddr(props.mq().namesrv());
        c.setInstanceName(instanceName(role));
        c.setHeartbeatBrokerInterval(HEARTBEAT_MS);
        c.setMaxReconsumeTimes(props.mq().maxReconsumeTimes());
        // a group with no stored offset on a queue reads it from the start: with the client's default (last
        // offset) a new group skips what was sent before its first pull whenever the broker cannot say
        // the queue's first message is in memory - admitted reservations whose orders would never be made.
        // What was consumed before is answered by the inbox as a duplicate.
        c.setConsumeFromWhere(org.apache.rocketmq.common.consumer.ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        return c;
    }
}
