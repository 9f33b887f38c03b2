package io.seckill.mq;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Set;

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
        assertThat(MqClients.instanceName("outbox-relay")).isNotEqualTo(MqClients.instanceName("outbox-relay"))
                .startsWith("outbox-relay-" + MqClients.PROCESS + "-");
    }
}
