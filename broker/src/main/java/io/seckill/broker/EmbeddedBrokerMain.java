package io.seckill.broker;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.auth.authentication.provider.DefaultAuthenticationProvider;
import org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider;
import org.apache.rocketmq.auth.authorization.provider.DefaultAuthorizationProvider;
import org.apache.rocketmq.auth.authorization.provider.LocalAuthorizationMetadataProvider;
import org.apache.rocketmq.auth.config.AuthConfig;
import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.store.config.FlushDiskType;
import org.apache.rocketmq.store.config.MessageStoreConfig;

/**
 * A real RocketMQ NameServer and Broker on loopback, in a JVM of their own.
 *
 * <p>Usage: {@code EmbeddedBrokerMain <storeDir> <namesrvPort> <brokerPort> <delayLevels> [<brokerName> <namesrvAddr>]}.
 * With four arguments it runs a NameServer and the broker {@code seckill-broker-a}; with six, only a
 * broker of the given name that registers with the given NameServer (a second broker of the same
 * cluster; {@code namesrvPort} is then 0). Prints {@code READY <namesrvAddr>} once the NameServer
 * lists the broker. The process exits
 * when its standard input closes, so it never outlives the JVM that started it; killing it
 * with SIGKILL and starting it again on the same store is a real broker crash and recovery.
 */
public final class EmbeddedBrokerMain {

    private static final int MB = 1024 * 1024;

    private EmbeddedBrokerMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4 && args.length != 6) {
            System.err.println("usage: EmbeddedBrokerMain <storeDir> <namesrvPort> <brokerPort> <delayLevels> "
                    + "[<brokerName> <namesrvAddr>]");
            System.exit(2);
        }
        boolean ownNamesrv = args.length == 4;
        String brokerName = ownNamesrv ? "seckill-broker-a" : args[4];
        File store = new File(args[0]);
        int namesrvPort = Integer.parseInt(args[1]);
        int brokerPort = Integer.parseInt(args[2]);
        String delayLevels = args[3];
        // A NameServer in a JVM without a client ignores broker topics unless this is set.
        System.setProperty("rocketmq.remoting.version", Integer.toString(MQVersion.CURRENT_VERSION));
        NamesrvController namesrv = ownNamesrv ? startNamesrv(store, namesrvPort) : null;
        String namesrvAddr = ownNamesrv ? "127.0.0.1:" + namesrvPort : args[5];

        BrokerConfig brokerConfig = new BrokerConfig();
        brokerConfig.setBrokerName(brokerName);
        runBroker(store, brokerPort, delayLevels, namesrvAddr, brokerConfig, namesrv);

        waitForParentToGo(System.in);
        Runtime.getRuntime().halt(0);
    }

    private static NamesrvController startNamesrv(File store, int namesrvPort) throws Exception {
        NettyServerConfig namesrvNetty = new NettyServerConfig();
        namesrvNetty.setBindAddress("127.0.0.1");
        namesrvNetty.setListenPort(namesrvPort);
        NamesrvConfig namesrvConfig = new NamesrvConfig();
        namesrvConfig.setRocketmqHome(store.getAbsolutePath());
        namesrvConfig.setKvConfigPath(new File(store, "namesrv/kvConfig.json").getAbsolutePath());
        namesrvConfig.setConfigStorePath(new File(store, "namesrv/namesrv.properties").getAbsolutePath());
        NamesrvController namesrv = new NamesrvController(namesrvConfig, namesrvNetty, new NettyClientConfig());
        if (!namesrv.initialize()) {
            throw new IllegalStateException("NameServer failed to initialize");
        }
        namesrv.start();
        return namesrv;
    }

    private static void runBroker(
            File store,
            int brokerPort,
            String delayLevels,
            String namesrvAddr,
            BrokerConfig brokerConfig,
            NamesrvController namesrv)
            throws Exception {
        brokerConfig.setBrokerClusterName("seckill");
        // the address clients are told to connect to; a test may put a relay there (-Dseckill.broker.advertise)
        brokerConfig.setBrokerIP1(System.getProperty("seckill.broker.advertise", "127.0.0.1"));
        brokerConfig.setNamesrvAddr(namesrvAddr);
        brokerConfig.setAutoCreateTopicEnable(true);
        brokerConfig.setRocketmqHome(store.getAbsolutePath());
        // loopback on a shared 2-core box: tolerate longer queueing before refusing sends as "busy"
        brokerConfig.setWaitTimeMillsInSendQueue(3_000);
        brokerConfig.setSendMessageThreadPoolNums(2);
        NettyServerConfig brokerNetty = new NettyServerConfig();
        brokerNetty.setBindAddress("127.0.0.1");
        brokerNetty.setListenPort(brokerPort);
        MessageStoreConfig storeConfig = new MessageStoreConfig();
        storeConfig.setStorePathRootDir(new File(store, "store").getAbsolutePath());
        storeConfig.setStorePathCommitLog(new File(store, "store/commitlog").getAbsolutePath());
        storeConfig.setMappedFileSizeCommitLog(32 * MB);
        storeConfig.setMappedFileSizeConsumeQueue(30_000 * 20);
        storeConfig.setMaxHashSlotNum(100_000);
        storeConfig.setMaxIndexNum(400_000);
        storeConfig.setMappedFileSizeTimerLog(8 * MB);
        // no timer messages here (redeliveries wait on delay levels, in the schedule topic): the timer wheel's
        // services would flush its file and poll its queues all the time for nothing
        storeConfig.setTimerWheelEnable(false);
        storeConfig.setHaListenPort(0);
        storeConfig.setFlushDiskType(FlushDiskType.ASYNC_FLUSH);
        storeConfig.setOsPageCacheBusyTimeOutMills(3_000);
        // let one pull carry a whole consumer batch (the default caps a pull at 32 messages)
        storeConfig.setMaxTransferCountOnMessageInMemory(256);
        storeConfig.setMessageDelayLevel(delayLevels);
        BrokerController broker = new BrokerController(
                brokerConfig, brokerNetty, new NettyClientConfig(), storeConfig, authConfig(brokerConfig, storeConfig));
        if (!broker.initialize()) {
            throw new IllegalStateException("Broker failed to initialize (store " + store + ")");
        }
        broker.start();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!registered(broker, brokerConfig, namesrv)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Broker did not register with the NameServer within 60 s");
            }
            broker.registerBrokerAll(true, false, true);
            TimeUnit.MILLISECONDS.sleep(200);
        }
        System.out.println("READY " + namesrvAddr);
        System.out.flush();
    }

    /**
     * Access control: none, or - with {@code SECKILL_BROKER_ACL=user:password} in the environment - RocketMQ ACL 2.0
     * with that one user, a super user created at the first start: every client request must carry its signature
     * (an unsigned send or pull is refused), and the broker signs its own calls with it.
     */
    private static AuthConfig authConfig(BrokerConfig brokerConfig, MessageStoreConfig storeConfig) {
        AuthConfig auth = new AuthConfig();
        auth.setConfigName(brokerConfig.getBrokerName());
        auth.setClusterName(brokerConfig.getBrokerClusterName());
        auth.setAuthConfigPath(storeConfig.getStorePathRootDir() + File.separator + "config");
        String acl = System.getenv("SECKILL_BROKER_ACL");
        if (acl == null || acl.isBlank()) {
            return auth;
        }
        int colon = acl.indexOf(':');
        if (colon <= 0 || colon == acl.length() - 1) {
            throw new IllegalArgumentException("SECKILL_BROKER_ACL: must be user:password");
        }
        String user = acl.substring(0, colon);
        String password = acl.substring(colon + 1);
        auth.setAuthenticationEnabled(true);
        auth.setAuthenticationProvider(DefaultAuthenticationProvider.class.getName());
        auth.setAuthenticationMetadataProvider(LocalAuthenticationMetadataProvider.class.getName());
        auth.setAuthorizationEnabled(true);
        auth.setAuthorizationProvider(DefaultAuthorizationProvider.class.getName());
        auth.setAuthorizationMetadataProvider(LocalAuthorizationMetadataProvider.class.getName());
        auth.setInitAuthenticationUser(json("username", user, "password", password));
        auth.setInnerClientAuthenticationCredentials(json("accessKey", user, "secretKey", password));
        return auth;
    }

    /** A JSON object of two string fields (the values are checked to need no escaping). */
    private static String json(String k1, String v1, String k2, String v2) {
        for (String v : new String[] {v1, v2}) {
            if (!v.matches("[A-Za-z0-9_.@+=/-]+")) {
                throw new IllegalArgumentException("SECKILL_BROKER_ACL: letters, digits and _.@+=/- only");
            }
        }
        return "{\"" + k1 + "\":\"" + v1 + "\",\"" + k2 + "\":\"" + v2 + "\"}";
    }

    /** Whether the NameServer lists this broker: asked in-process when it runs here, else over the wire. */
    private static boolean registered(BrokerController broker, BrokerConfig config, NamesrvController namesrv) {
        if (namesrv != null) {
            return namesrv.getRouteInfoManager()
                    .getAllClusterInfo()
                    .getBrokerAddrTable()
                    .containsKey(config.getBrokerName());
        }
        try {
            return !broker.getBrokerOuterAPI()
                    .getBrokerMemberGroup(config.getBrokerClusterName(), config.getBrokerName())
                    .getBrokerAddrs()
                    .isEmpty();
        } catch (Exception e) {
            System.err.println("NameServer not answering yet: " + e);
            return false;
        }
    }

    private static void waitForParentToGo(InputStream in) {
        try {
            while (in.read() >= 0) {
                // the parent writes nothing; EOF means it is gone
            }
        } catch (IOException e) {
            System.err.println("stdin closed: " + e);
        }
    }
}
