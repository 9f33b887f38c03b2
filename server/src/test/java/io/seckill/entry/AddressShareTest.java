package io.seckill.entry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class AddressShareTest {

    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

    @Test
    @DisplayName("an address gets its share a second, another address its own; the next second starts again")
    void perAddressPerSecond() throws Exception {
        AddressShare share = new AddressShare(3, nanos::get);
        InetAddress a = InetAddress.getByName("10.0.0.1");
        InetAddress b = InetAddress.getByName("10.0.0.2");
        for (int i = 0; i < 3; i++) {
            assertThat(share.tryAcquire(a)).isTrue();
        }
        assertThat(share.tryAcquire(a)).as("over its share").isFalse();
        assertThat(share.tryAcquire(b)).as("another address").isTrue();
        nanos.addAndGet(1_000_000_000L);
        assertThat(share.tryAcquire(a)).as("the next second").isTrue();
    }

    @Test
    @DisplayName("0 caps nothing; the addresses kept are bounded; a negative share is refused naming the property")
    void bounds() throws Exception {
        AddressShare off = new AddressShare(0, nanos::get);
        InetAddress a = InetAddress.getByName("10.0.0.1");
        for (int i = 0; i < 10_000; i++) {
            assertThat(off.tryAcquire(a)).isTrue();
        }
        AddressShare share = new AddressShare(1, nanos::get);
        for (int i = 0; i < AddressShare.MAX_TRACKED + 10; i++) {
            share.tryAcquire(InetAddress.getByAddress(new byte[] {10, (byte) (i >> 16), (byte) (i >> 8), (byte) i}));
        }
        assertThat(share.tracked()).isLessThanOrEqualTo(AddressShare.MAX_TRACKED);
        assertThatThrownBy(() -> new AddressShare(-1, nanos::get))
                .hasMessageStartingWith("seckill.admission.entry-limits.max-calls-per-address-per-second");
    }
}
