package io.seckill.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.redis.LuaScript;
import io.seckill.redis.Redis;
import io.seckill.redis.ScriptReply;
import io.seckill.redis.SkuSlot;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Setting up sales whose SKU is split over buckets: which users a bucket is home to, and a bucket emptied into another. */
public final class Buckets {

    private static final LuaScript TRANSFER_OUT = LuaScript.load("transfer_out");
    private static final LuaScript LAND = LuaScript.load("land_transfer");

    private Buckets() {}

    /** {@code count} user ids from {@code from} on whose home bucket of SKU 1 is {@code bucket}. */
    public static List<Long> homedIn(long activityId, int buckets, int bucket, int count, long from) {
        List<Long> out = new ArrayList<>();
        for (long user = from; out.size() < count; user++) {
            if (SkuSlot.forUser(activityId, 1, buckets, user).bucket() == bucket) {
                out.add(user);
            }
        }
        return out;
    }

    /** Moves every unit of {@code from} to {@code to}, each by a whole transfer (out, then landed), as the product moves them. */
    public static void empty(Redis redis, SkuSlot from, SkuSlot to) {
        while (true) {
            String id = UUID.randomUUID().toString();
            List<Object> out = TRANSFER_OUT.run(
                    redis,
                    new String[] {from.stock(), from.counter(), from.meta(), from.transfers()},
                    id,
                    Integer.toString(to.bucket()));
            if (ScriptReply.codeOf(out) != 1) {
                assertThat(ScriptReply.text(out, 1)).isEqualTo("EMPTY");
                return;
            }
            assertThat(ScriptReply.codeOf(LAND.run(
                            redis,
                            new String[] {to.stock(), to.counter(), to.meta(), to.transferMarker(id)},
                            id,
                            "600000")))
                    .isEqualTo(1);
            redis.sync().hdel(from.transfers(), id);
        }
    }
}
