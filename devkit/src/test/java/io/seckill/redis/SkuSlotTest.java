package io.seckill.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SkuSlotTest {

    @Test
    @DisplayName("all keys of a slot share one hash tag; a bucketed SKU adds the bucket to the tag")
    void hashTags() {
        SkuSlot one = SkuSlot.forUser(1001, 90001, 1, 42);
        assertThat(one.tag()).isEqualTo("{1001:90001}");
        assertThat(one.stock()).isEqualTo("seckill:{1001:90001}:stock");
        assertThat(one.reservation("r")).isEqualTo("seckill:{1001:90001}:reservation:r");
        assertThat(one.request(42, "q")).isEqualTo("seckill:{1001:90001}:request:42:q");
        assertThat(one.user(42)).isEqualTo("seckill:{1001:90001}:user:42");
        SkuSlot bucketed = new SkuSlot(1001, 90001, 3, 8);
        assertThat(bucketed.sendDue()).isEqualTo("seckill:{1001:90001:3}:send_due");
        assertThat(bucketed.counter()).startsWith("seckill:{1001:90001:3}:");
    }

    @Test
    @DisplayName("a user always lands in the same bucket, and users spread over all buckets")
    void bucketOfUser() {
        Set<Integer> seen = new HashSet<>();
        for (long u = 1; u <= 1000; u++) {
            int b = SkuSlot.bucketOf(u, 8);
            assertThat(SkuSlot.bucketOf(u, 8)).isEqualTo(b);
            assertThat(b).isBetween(0, 7);
            seen.add(b);
        }
        assertThat(seen).hasSize(8);
        assertThat(SkuSlot.bucketOf(123, 1)).isZero();
        assertThatThrownBy(() -> new SkuSlot(1, 1, 8, 8)).isInstanceOf(IllegalArgumentException.class);
    }
}
