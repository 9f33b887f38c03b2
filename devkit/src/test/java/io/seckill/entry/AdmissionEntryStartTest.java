package io.seckill.entry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import io.seckill.config.SeckillProperties;

/** The entry's own start and stop, on real sockets: a port it cannot take fails start-up naming the property. */
class AdmissionEntryStartTest {

    private static AdmissionEntry entry(String port, String roles) {
        SeckillProperties props = new Binder(new MapConfigurationPropertySource(Map.of(
                "seckill.roles", roles,
                "seckill.ids.keys.1", "entry-test-id-key-0123456789abcdef012345",
                "seckill.jwt.user-secret", "entry-test-user-secret-0123456789abcdef0",
                "seckill.jwt.admin-secret", "entry-test-admin-secret-0123456789abcdef",
                "seckill.admission.entry-port", port))).bindOrCreate("seckill", SeckillProperties.class);
        return new AdmissionEntry(props, null, null, new SimpleMeterRegistry(), null, 65_536, "127.0.0.1");
    }

    @Test
    @DisplayName("the entry listens on the port it is given and lets it go when stopped; off by default and without the api role")
    void startsAndStops() {
        AdmissionEntry entry = entry("0", "api");
        entry.start();
        try {
            assertThat(entry.isRunning()).isTrue();
            assertThat(entry.port()).isPositive();
        } finally {
            entry.stop();
        }
        assertThat(entry.port()).isEqualTo(-1);
        AdmissionEntry off = entry("-1", "api");
        off.start();
        assertThat(off.port()).isEqualTo(-1);
        off.stop();
        AdmissionEntry worker = entry("0", "order-consumer");
        worker.start();
        assertThat(worker.isRunning()).isFalse();
        assertThat(worker.port()).isEqualTo(-1);
    }

    @Test
    @DisplayName("a port already taken fails start-up with a message naming seckill.admission.entry-port")
    void takenPortFailsStartUp() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            AdmissionEntry entry = entry(Integer.toString(taken.getLocalPort()), "api");
            assertThatThrownBy(entry::start).hasMessageStartingWith("seckill.admission.entry-port")
                    .hasMessageContaining(Integer.toString(taken.getLocalPort()));
            assertThat(entry.isRunning()).isFalse();
            assertThat(entry.port()).isEqualTo(-1);
        }
    }
}
