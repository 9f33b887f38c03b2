package io.seckill.mq;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Set;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.SerializeType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class MqClientsTest {

    @Test
    @DisplayName("two processes with the same pid (two containers running as pid 1) are two owners; names never repeat")
    void ownersAreUniqueAcrossInstances() {
        Set<String> processes = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            assertThat(processes.add(MqClients.process(1, new SecureRandom()))).isTrue();
        }
        assertThat(MqClients.process(1, new SecureRandom())).startsWith("1-").hasSize(2 + 12);
        assertThat(MqClients.instanceName("outbox-relay"))
                .isNotEqualTo(MqClients.instanceName("outbox-relay"))
                .startsWith("outbox-relay-" + MqClients.PROCESS + "-");
    }

    @Test
    @DisplayName(
            "RocketMQ headers travel in its binary encoding: set when nobody chose, an operator's choice kept, and the "
                    + "one this test JVM's clients use (as the executables set it)")
    void binaryHeaders() {
        String property = RemotingCommand.SERIALIZE_TYPE_PROPERTY;
        String before = System.getProperty(property);
        try {
            System.clearProperty(property);
            MqClients.useBinaryHeaders();
            assertThat(System.getProperty(property)).isEqualTo("ROCKETMQ");
            System.setProperty(property, "JSON");
            MqClients.useBinaryHeaders();
            assertThat(System.getProperty(property))
                    .as("an operator's own setting")
                    .isEqualTo("JSON");
        } finally {
            if (before == null) {
                System.clearProperty(property);
            } else {
                System.setProperty(property, before);
            }
        }
        assertThat(RemotingCommand.getSerializeTypeConfigInThisServer()).isEqualTo(SerializeType.ROCKETMQ);
    }
}
