package io.seckill.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.codec.StringCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RedisTextTest {

    @Test
    @DisplayName("the size given for a text is the number of bytes written for it, and those bytes are Lettuce's UTF-8 "
            + "codec's, for plain, multi-byte, four-byte, unpaired-surrogate and 20,000 random texts")
    void exactSize() {
        assertThat(RedisText.UTF8.isEstimateExact()).isTrue();
        assertThat(RedisText.UTF8.estimateSize(null)).isZero();
        for (String text : new String[] {
            "", "sku:{42:7}:stock", "库存-ü-€", "\uD83D\uDE00 emoji", "lone \uD800 high", "lone \uDC00 low", "end \uD83D"
        }) {
            assertSameAsStringCodec(text);
        }
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 20_000; i++) {
            char[] chars = new char[random.nextInt(0, 40)];
            for (int c = 0; c < chars.length; c++) {
                int kind = random.nextInt(4);
                chars[c] = (char)
                        switch (kind) {
                            case 0 -> random.nextInt(0x20, 0x7f);
                            case 1 -> random.nextInt(0x80, 0x800);
                            case 2 -> random.nextInt(0xD800, 0xE000);
                            default -> random.nextInt(0x800, 0x10000);
                        };
            }
            assertSameAsStringCodec(new String(chars));
        }
    }

    private static void assertSameAsStringCodec(String text) {
        ByteBuf ours = Unpooled.buffer();
        ByteBuf lettuces = Unpooled.buffer();
        RedisText.UTF8.encodeValue(text, ours);
        StringCodec.UTF8.encodeValue(text, lettuces);
        assertThat(RedisText.UTF8.estimateSize(text)).as("size of %s", text).isEqualTo(ours.readableBytes());
        assertThat(ByteBufUtil.getBytes(ours)).as("bytes of %s", text).isEqualTo(ByteBufUtil.getBytes(lettuces));
        if (text.chars().noneMatch(c -> Character.isSurrogate((char) c))) {
            assertThat(ByteBufUtil.getBytes(ours)).isEqualTo(text.getBytes(StandardCharsets.UTF_8));
        }
    }
}
