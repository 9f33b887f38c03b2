package io.seckill.failpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class FailpointsTest {

    @AfterEach
    void off() {
        Failpoints.disarmAll();
    }

    @Test
    @DisplayName("the ten failpoints of design 13.3 exist; off they do nothing")
    void namesAndOff() {
        assertThat(Failpoints.NAMES).hasSize(10).doesNotHaveDuplicates();
        for (String name : Failpoints.NAMES) {
            assertThatCode(() -> Failpoints.hit(name)).doesNotThrowAnyException();
        }
    }

    @Test
    @DisplayName("armed N times, a failpoint fires N times and disarms itself")
    void countedThrow() {
        Failpoints.arm(Failpoints.AFTER_INBOX_INSERT, "throw*2");
        assertThatThrownBy(() -> Failpoints.hit(Failpoints.AFTER_INBOX_INSERT)).isInstanceOf(Failpoints.FailpointException.class);
        assertThatCode(() -> Failpoints.hit(Failpoints.AFTER_ORDER_INSERT)).doesNotThrowAnyException();
        assertThatThrownBy(() -> Failpoints.hit(Failpoints.AFTER_INBOX_INSERT)).isInstanceOf(Failpoints.FailpointException.class);
        assertThatCode(() -> Failpoints.hit(Failpoints.AFTER_INBOX_INSERT)).doesNotThrowAnyException();
        assertThat(Failpoints.armed()).isEmpty();
    }

    @Test
    @DisplayName("delay stalls; bad names and actions are refused with a clear message")
    void delayAndValidation() {
        Failpoints.arm(Failpoints.AFTER_ORDER_INSERT, "delay:50*1");
        long t = System.nanoTime();
        Failpoints.hit(Failpoints.AFTER_ORDER_INSERT);
        assertThat((System.nanoTime() - t) / 1_000_000).isGreaterThanOrEqualTo(45);
        assertThatThrownBy(() -> Failpoints.arm("after_lunch", "throw")).hasMessageContaining("unknown failpoint");
        assertThatThrownBy(() -> Failpoints.arm(Failpoints.AFTER_ORDER_INSERT, "explode")).hasMessageContaining("unknown failpoint action");
        assertThatThrownBy(() -> Failpoints.arm(Failpoints.AFTER_ORDER_INSERT, "throw%0")).hasMessageContaining("%P");
    }
}
