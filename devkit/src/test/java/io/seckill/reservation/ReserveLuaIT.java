package io.seckill.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.redis.LuaScript;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import io.seckill.support.Buckets;
import io.seckill.support.IntegrationTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * reserve.lua against real Redis: key rotation, the Redis clock window, every recovery field, the hold of units
 * returned to an empty bucket.
 */
class ReserveLuaIT extends IntegrationTest {

    private static final LuaScript RESERVE = LuaScript.load("reserve");
    private static final LuaScript TRANSFER_OUT = LuaScript.load("transfer_out");
    private static final LuaScript ADJUST = LuaScript.load("adjust_stock");
    private static final LuaScript RAISE_HOLD = LuaScript.load("raise_hold");
    private final ReservationIds ids = new ReservationIds(
            Map.of(1, "key-one-0123456789abcdef0123456789abcdef", 2, "key-two-0123456789abcdef0123456789abcdef"));

    private List<Object> reserve(SkuSlot slot, long user, UUID request, int version, int... olderVersions) {
        return reserveHolding(slot, user, request, 0, version, olderVersions);
    }

    private List<Object> reserveHolding(
            SkuSlot slot, long user, UUID request, long holdMs, int version, int... olderVersions) {
        UUID rid = ids.reservationId(version, slot.activityId(), slot.skuId(), user, request);
        List<String> keys = new java.util.ArrayList<>(List.of(
                slot.stock(),
                slot.counter(),
                slot.meta(),
                slot.request(user, request.toString()),
                slot.user(user),
                slot.sendDue(),
                slot.deadlines(),
                slot.reservation(rid.toString())));
        for (int v : olderVersions) {
            keys.add(slot.reservation(ids.reservationId(v, slot.activityId(), slot.skuId(), user, request)
                    .toString()));
        }
        return RESERVE.run(
                redis,
                keys.toArray(String[]::new),
                rid.toString(),
                ids.messageId(version, rid).toString(),
                request.toString(),
                Long.toString(user),
                Long.toString(slot.activityId()),
                Long.toString(slot.skuId()),
                Integer.toString(version),
                "5000",
                "300000",
                "60000",
                Long.toString(holdMs));
    }

    private SkuSlot openSlot(long startOffsetMs, long endOffsetMs) {
        SkuSlot slot = SkuSlot.single(newActivityId(), 1);
        long now = System.currentTimeMillis();
        redis.sync().set(slot.stock(), "10");
        redis.sync().hset(slot.counter(), Map.of("initial", "10", "open_reserved", "0", "committed", "0"));
        redis.sync()
                .hset(
                        slot.meta(),
                        Map.of(
                                "status",
                                "OPEN",
                                "start_ms",
                                Long.toString(now + startOffsetMs),
                                "end_ms",
                                Long.toString(now + endOffsetMs)));
        return slot;
    }

    @Test
    @DisplayName(
            "DESIGN.md §9.1: after a key rotation, a replay whose request map is gone still finds the reservation made under the old key")
    void replayAcrossKeyRotation() {
        UUID request = UUID.randomUUID();
        SkuSlot slot = openSlot(-1_000, 60_000);
        List<Object> first = reserve(slot, 5, request, 1);
        assertThat(ScriptReply.codeOf(first)).isEqualTo(1);
        redis.sync().del(slot.request(5, request.toString()));

        List<Object> replay = reserve(slot, 5, request, 2, 1);
        assertThat(ScriptReply.codeOf(replay)).isEqualTo(2);
        assertThat(ScriptReply.text(replay, 2)).isEqualTo(ScriptReply.text(first, 2));
        assertThat(redis.sync().get(slot.stock())).isEqualTo("9");
        assertThat(redis.sync().get(slot.request(5, request.toString()))).isEqualTo(ScriptReply.text(first, 2));
    }

    @Test
    @DisplayName("one Lua call writes stock, counters, every recovery field, send_due, request map and user mark")
    void reservationFields() {
        SkuSlot slot = openSlot(-1_000, 60_000);
        UUID request = UUID.randomUUID();
        List<Object> r = reserve(slot, 6, request, 1);
        String rid = ScriptReply.text(r, 2);
        Map<String, String> h = redis.sync().hgetall(slot.reservation(rid));
        assertThat(h)
                .containsEntry("status", "RESERVED")
                .containsEntry("mq_state", "PENDING")
                .containsEntry("user_id", "6")
                .containsEntry("request_id", request.toString())
                .containsEntry("reservation_id", rid)
                .containsEntry("key_version", "1")
                .containsEntry("schema_version", "1")
                .containsKeys("message_id", "reserved_at_ms", "business_deadline_ms", "send_attempts");
        long reservedAt = Long.parseLong(h.get("reserved_at_ms"));
        assertThat(Long.parseLong(h.get("business_deadline_ms")) - reservedAt).isEqualTo(300_000);
        assertThat(redis.sync().zscore(slot.sendDue(), rid)).isEqualTo(reservedAt + 5000.0);
        assertThat(redis.sync().zscore(slot.deadlines(), rid)).isEqualTo(reservedAt + 300_000.0);
        assertThat(redis.sync().get(slot.user(6))).isEqualTo(rid);
        assertThat(redis.sync().hget(slot.counter(), "open_reserved")).isEqualTo("1");
        assertThat(redis.sync().pttl(slot.request(6, request.toString()))).isBetween(1L, 60_000L);
    }

    @Test
    @DisplayName("the sale window is judged on the Redis clock: before start and after end refuse, writing nothing")
    void saleWindow() {
        SkuSlot early = openSlot(60_000, 120_000);
        assertThat(ScriptReply.codeOf(reserve(early, 7, UUID.randomUUID(), 1))).isEqualTo(-3);
        SkuSlot late = openSlot(-120_000, -60_000);
        assertThat(ScriptReply.codeOf(reserve(late, 7, UUID.randomUUID(), 1))).isEqualTo(-3);
        assertThat(redis.sync().get(early.stock())).isEqualTo("10");
        assertThat(redis.sync().get(late.stock())).isEqualTo("10");
        assertThat(redis.sync().zcard(late.sendDue())).isZero();
    }

    @Test
    @DisplayName("units returned to an empty bucket are held on the Redis clock: reserve answers SOLD_OUT (RETURNING) "
            + "and transfer_out EMPTY, writing nothing, until the hold ends; a return to a bucket that has units, and a "
            + "transfer's landing, hold nothing; every addition gives the added mark a new value")
    void returnedUnitsAreHeld() {
        SkuSlot slot = openSlot(-1_000, 60_000);
        redis.sync().set(slot.stock(), "0");
        assertThat(redis.sync().hget(slot.counter(), "added")).isNull();

        adjust(slot, 1);
        String firstMark = redis.sync().hget(slot.counter(), "added");
        assertThat(firstMark).matches("1:\\d+");
        assertThat(redis.sync().hget(slot.counter(), "refilled_ms")).isEqualTo(firstMark.substring(2));
        List<Object> held = reserveHolding(slot, 20, UUID.randomUUID(), 1_000, 1);
        assertThat(ScriptReply.codeOf(held)).isEqualTo(-1);
        assertThat(ScriptReply.text(held, 3)).isEqualTo("RETURNING");
        assertThat(transferOut(slot, 1_000)).isEqualTo(-1);
        assertThat(redis.sync().get(slot.stock())).isEqualTo("1");
        assertThat(redis.sync().hlen(slot.transfers())).isZero();
        assertThat(redis.sync().get(slot.user(20))).isNull();
        assertThat(ScriptReply.codeOf(reserveHolding(slot, 21, UUID.randomUUID(), 0, 1)))
                .as("no hold asked (no memo): admitted")
                .isEqualTo(1);

        // from empty again, then a return to the bucket that has units: the second holds nothing new
        adjust(slot, 2);
        long refilled = Long.parseLong(redis.sync().hget(slot.counter(), "refilled_ms"));
        adjust(slot, 1);
        assertThat(redis.sync().hget(slot.counter(), "added")).startsWith("3:");
        assertThat(redis.sync().hget(slot.counter(), "refilled_ms")).isEqualTo(Long.toString(refilled));
        assertThat(ScriptReply.text(reserveHolding(slot, 22, UUID.randomUUID(), 300, 1), 3))
                .isEqualTo("RETURNING");
        assertThat(admittedOnceHeldNoMore(slot, 22, 300))
                .as("admitted only once the hold ended, on the Redis clock")
                .isGreaterThanOrEqualTo(refilled + 300);

        // a landing into an empty bucket: noted, not held
        List<SkuSlot> two = SkuSlot.all(newActivityId(), 1, 2);
        for (SkuSlot b : two) {
            redis.sync().set(b.stock(), "0");
            redis.sync().hset(b.counter(), Map.of("initial", "0", "open_reserved", "0", "committed", "0"));
            redis.sync().hset(b.meta(), redis.sync().hgetall(slot.meta()));
        }
        redis.sync().set(two.get(0).stock(), "1");
        Buckets.empty(redis, two.get(0), two.get(1));
        assertThat(redis.sync().hget(two.get(1).counter(), "added")).startsWith("1:");
        assertThat(redis.sync().hget(two.get(1).counter(), "refilled_ms")).isNull();
        assertThat(ScriptReply.codeOf(reserveHolding(two.get(1), 23, UUID.randomUUID(), 60_000, 1)))
                .isEqualTo(1);
    }

    @Test
    @DisplayName("a bucket's own hold outlasts a caller's shorter one: with hold_ms raised to 400 ms, a reserve asking "
            + "for no hold (an instance with the memo off) and a transfer_out are refused until it ends; raise_hold "
            + "never lowers it")
    void theBucketsHoldOutlastsACallersShorterOne() {
        SkuSlot slot = openSlot(-1_000, 60_000);
        redis.sync().set(slot.stock(), "0");
        assertThat(ScriptReply.number(RAISE_HOLD.run(redis, new String[] {slot.counter()}, "400"), 0))
                .isEqualTo(400);
        assertThat(ScriptReply.number(RAISE_HOLD.run(redis, new String[] {slot.counter()}, "200"), 0))
                .as("a shorter hold asked later")
                .isEqualTo(400);
        assertThat(redis.sync().hget(slot.counter(), "hold_ms")).isEqualTo("400");

        adjust(slot, 1);
        long refilled = Long.parseLong(redis.sync().hget(slot.counter(), "refilled_ms"));
        assertThat(ScriptReply.text(reserveHolding(slot, 30, UUID.randomUUID(), 0, 1), 3))
                .isEqualTo("RETURNING");
        assertThat(transferOut(slot, 0)).isEqualTo(-1);
        assertThat(admittedOnceHeldNoMore(slot, 30, 0))
                .as("admitted only once the bucket's hold ended, on the Redis clock")
                .isGreaterThanOrEqualTo(refilled + 400);
    }

    /** transfer_out.lua's code for one unit of {@code slot} to bucket 0, with {@code holdMs} as the caller's hold. */
    private long transferOut(SkuSlot slot, long holdMs) {
        return ScriptReply.codeOf(TRANSFER_OUT.run(
                redis,
                new String[] {slot.stock(), slot.counter(), slot.meta(), slot.transfers()},
                UUID.randomUUID().toString(),
                "0",
                Long.toString(holdMs)));
    }

    /**
     * Asks for {@code user} (with {@code holdMs} as the caller's hold) until admitted - RETURNING writes nothing, so
     * each attempt is a first one - and returns the admission's time on the Redis clock.
     */
    private long admittedOnceHeldNoMore(SkuSlot slot, long user, long holdMs) {
        List<Object> admitted = Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> reserveHolding(slot, user, UUID.randomUUID(), holdMs, 1), r -> ScriptReply.codeOf(r) == 1);
        return ScriptReply.number(admitted, 4);
    }

    private void adjust(SkuSlot slot, int delta) {
        assertThat(ScriptReply.codeOf(ADJUST.run(
                        redis,
                        new String[] {
                            slot.stock(),
                            slot.counter(),
                            slot.adjustmentMarker(UUID.randomUUID().toString())
                        },
                        Integer.toString(delta),
                        UUID.randomUUID().toString(),
                        "60000")))
                .isEqualTo(1);
    }
}
