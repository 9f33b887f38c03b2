package io.seckill.redis;

import io.lettuce.core.codec.StringCodec;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;

/**
 * Keys, arguments and replies as UTF-8 text, exactly as Lettuce's {@code StringCodec.UTF8}, with each
 * argument's encoded length computed exactly instead of estimated. With an estimate, Lettuce encodes
 * every key and argument into a temporary pooled buffer of its own to learn its length, copies it into
 * the command and releases it: eighteen allocations for one reservation, and a leak-detector record
 * (a stack trace) for every 128th. With the exact length it writes each straight into the command.
 */
public final class RedisText extends StringCodec {

    public static final RedisText UTF8 = new RedisText();

    private RedisText() {
        super(StandardCharsets.UTF_8);
    }

    /** The bytes {@link #encode(String, io.netty.buffer.ByteBuf)} writes for the value: its UTF-8 length. */
    @Override
    public int estimateSize(Object value) {
        return value instanceof CharSequence text ? ByteBufUtil.utf8Bytes(text) : 0;
    }

    @Override
    public boolean isEstimateExact() {
        return true;
    }
}
