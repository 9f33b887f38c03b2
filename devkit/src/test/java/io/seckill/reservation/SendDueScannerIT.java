package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.redis.LuaScript;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** DESIGN.md §7.2, 10.2: rescan leases in Redis, fenced by the owner token. */
class SendDueScannerIT extends IntegrationTest {

    private static final LuaScript CLAIM_DUE = LuaScript.load("claim_due");
    private static final LuaScript MARK_PUBLISHED = LuaScript.load("mark_published");
    private static final LuaScript MARK_UNKNOWN = LuaScript.load("mark_send_unknown");

    @Test
    @DisplayName("a scanner whose lease expired and was taken over has its writes refused; the entry is settled once")
    void staleScannerIsFenced() {
        String p = "seckill:{scan-" + System.nanoTime() + "}:";
        String[] keys = {p + "reservation:r1", p + "send_due"};
        redis.sync()
                .hset(
                        keys[0],
                        Map.of(
                                "reservation_id",
                                "r1",
                                "status",
                                "RESERVED",
                                "mq_state",
                                "PENDING",
                                "message_id",
                                "m1",
                                "request_id",
                                "q1",
                                "user_id",
                                "1",
                                "activity_id",
                                "1",
                                "sku_id",
                                "1",
                                "reserved_at_ms",
                                "1",
                                "business_deadline_ms",
                                "2"));
        redis.sync().hset(keys[0], "send_attempts", "0");
        redis.sync().zadd(keys[1], 0, "r1");

        List<Object> a = CLAIM_DUE.run(redis, new String[] {keys[1]}, "10", "60000", "scanner-a");
        assertThat(a).hasSize(11);
        assertThat(ScriptReply.text(a, 10))
                .as("a first claim takes over no one's lease")
                .isEmpty();
        assertThat(redis.sync().hget(keys[0], "mq_state")).isEqualTo("PUBLISHING");
        assertThat(CLAIM_DUE.run(redis, new String[] {keys[1]}, "10", "60000", "scanner-b"))
                .as("leased: not due")
                .isEmpty();

        redis.sync().zadd(keys[1], 0, "r1"); // scanner-a paused past its lease
        List<Object> b = CLAIM_DUE.run(redis, new String[] {keys[1]}, "10", "60000", "scanner-b");
        assertThat(b).hasSize(11);
        assertThat(ScriptReply.text(b, 10))
                .as("the expired lease's owner, for reservation_send_lease_expired_total")
                .isEqualTo("scanner-a");
        assertThat(redis.sync().hget(keys[0], "send_attempts")).isEqualTo("2");

        assertThat(ScriptReply.codeOf(MARK_UNKNOWN.run(redis, keys, "r1", "scanner-a", "1000", "late")))
                .isEqualTo(-7);
        assertThat(ScriptReply.codeOf(MARK_PUBLISHED.run(redis, keys, "r1", "scanner-a")))
                .isEqualTo(-7);
        assertThat(redis.sync().zcard(keys[1])).isEqualTo(1);
        assertThat(ScriptReply.codeOf(MARK_PUBLISHED.run(redis, keys, "r1", "scanner-b")))
                .isEqualTo(1);
        assertThat(redis.sync().zcard(keys[1])).isZero();
        assertThat(redis.sync().hget(keys[0], "mq_state")).isEqualTo("PUBLISHED");
    }

    @Test
    @DisplayName("an entry whose reservation hash is gone is dropped from send_due and reported, never re-sent blind")
    void orphanEntry() {
        String p = "seckill:{scan-" + System.nanoTime() + "}:";
        redis.sync().zadd(p + "send_due", 0, "ghost");
        List<Object> r = CLAIM_DUE.run(redis, new String[] {p + "send_due"}, "10", "60000", "scanner-a");
        assertThat(ScriptReply.text(r, 0)).isEqualTo("ghost");
        assertThat(ScriptReply.text(r, 1)).isEqualTo("MISSING");
        assertThat(redis.sync().zcard(p + "send_due")).isZero();
    }

    @Test
    @DisplayName(
            "an entry claimed again after its scanner's lease ran out counts in reservation_send_lease_expired_total "
                    + "and is still settled once")
    void leaseExpiryIsCounted() throws Exception {
        long activityId = openSale(2);
        String rid = firstSettled(activityId, 77);
        SkuSlot slot = SkuSlot.single(activityId, 1);
        double before = meters.counter("reservation.send.lease.expired").count();
        // a scanner claimed the entry and died before sending: its token stays, the lease (score) ran out
        redis.sync().hset(slot.reservation(rid), "lease_owner", "scanner-that-died");
        redis.sync().zadd(slot.sendDue(), 0, rid);
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(meters.counter("reservation.send.lease.expired").count()).isEqualTo(before + 1);
            assertThat(redis.sync().zscore(slot.sendDue(), rid))
                    .as("re-sent and settled")
                    .isNull();
        });
        assertThat(count("SELECT count(*) FROM orders WHERE reservation_id = ?::uuid", rid))
                .isEqualTo(1);
        assertInvariants(activityId, true);
    }
}
