package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ReservationIdsTest {

    private static final String K1 = "key-one-0123456789abcdef0123456789abcdef";
    private static final String K2 = "key-two-0123456789abcdef0123456789abcdef";

    @Test
    @DisplayName("DESIGN.md §9.1: the same request always derives the same reservation and message id")
    void stable() {
        ReservationIds a = new ReservationIds(Map.of(1, K1));
        ReservationIds b = new ReservationIds(Map.of(1, K1));
        UUID request = UUID.randomUUID();
        UUID rid = a.reservationId(1, 10, 20, 30, request);
        assertThat(b.reservationId(1, 10, 20, 30, request)).isEqualTo(rid);
        assertThat(a.messageId(1, rid)).isEqualTo(b.messageId(1, rid)).isNotEqualTo(rid);
        assertThat(rid.version()).isEqualTo(8);
        assertThat(rid.variant()).isEqualTo(2);
    }

    @Test
    @DisplayName("every input and every key version changes the id")
    void distinct() {
        ReservationIds ids = new ReservationIds(Map.of(1, K1, 2, K2));
        UUID request = UUID.randomUUID();
        UUID base = ids.reservationId(1, 10, 20, 30, request);
        assertThat(ids.reservationId(2, 10, 20, 30, request)).isNotEqualTo(base);
        assertThat(ids.reservationId(1, 11, 20, 30, request)).isNotEqualTo(base);
        assertThat(ids.reservationId(1, 10, 21, 30, request)).isNotEqualTo(base);
        assertThat(ids.reservationId(1, 10, 20, 31, request)).isNotEqualTo(base);
        assertThat(ids.reservationId(1, 10, 20, 30, UUID.randomUUID())).isNotEqualTo(base);
        assertThat(ids.currentVersion()).isEqualTo(2);
        assertThat(ids.versions()).containsExactly(2, 1);
        assertThatThrownBy(() -> ids.reservationId(3, 1, 1, 1, request)).hasMessageContaining("version 3");
    }

    @Test
    @DisplayName(
            "ids made from 4 threads at once, key versions interleaved, are each HMAC(key_v, input) as a fresh HMAC "
                    + "computes it: a thread's reused HMAC carries nothing from one id to the next")
    void reusedHmacPerThread() throws Exception {
        ReservationIds ids = new ReservationIds(Map.of(1, K1, 2, K2));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> checks = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                int version = 1 + i % 2;
                long user = i;
                checks.add(pool.submit(() -> {
                    UUID request = UUID.randomUUID();
                    UUID rid = ids.reservationId(version, 10, 20, user, request);
                    return rid.equals(reference(version == 1 ? K1 : K2, "10|20|" + user + "|" + request))
                            && ids.messageId(version, rid)
                                    .equals(reference(
                                            version == 1 ? K1 : K2,
                                            "ORDER_CREATE_REQUESTED|" + rid + "|" + ReservationIds.SCHEMA_VERSION));
                }));
            }
            for (Future<Boolean> c : checks) {
                assertThat(c.get()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static UUID reference(String key, String input) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        byte[] d = mac.doFinal(input.getBytes(StandardCharsets.UTF_8));
        d[6] = (byte) ((d[6] & 0x0f) | 0x80);
        d[8] = (byte) ((d[8] & 0x3f) | 0x80);
        ByteBuffer b = ByteBuffer.wrap(d, 0, 16);
        return new UUID(b.getLong(), b.getLong());
    }

    @Test
    @DisplayName("derived ids (order, events, tasks) are stable per kind and source")
    void derived() {
        UUID r = UUID.randomUUID();
        assertThat(ReservationIds.derived("ORDER", r))
                .isEqualTo(ReservationIds.derived("ORDER", r))
                .isNotEqualTo(ReservationIds.derived("ORDER_CREATED", r));
    }

    @Test
    @DisplayName("the order message body is a pure function of the recovery fields (same bytes on every resend)")
    void messageBodyIsDeterministic() {
        UUID m = UUID.randomUUID();
        UUID q = UUID.randomUUID();
        UUID r = UUID.randomUUID();
        byte[] one = io.seckill.json.Json.bytes(
                OrderCreateRequested.of(m, q, r, 1, 2, 3, 1_782_360_000_123L, 1_782_360_300_000L));
        byte[] two = io.seckill.json.Json.bytes(
                OrderCreateRequested.of(m, q, r, 1, 2, 3, 1_782_360_000_123L, 1_782_360_300_000L));
        assertThat(one).isEqualTo(two);
        String json = new String(one, java.nio.charset.StandardCharsets.UTF_8);
        assertThat(json)
                .contains(
                        "\"message_id\":\"" + m + "\"",
                        "\"event_type\":\"ORDER_CREATE_REQUESTED\"",
                        "\"reserved_at\":\"2026-06-25T04:00:00.123Z\"",
                        "\"order_id\":null")
                .doesNotContain("retry_count");
    }
}
