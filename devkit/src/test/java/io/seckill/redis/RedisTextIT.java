package io.seckill.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.ScriptOutputType;
import io.seckill.support.TestEngines;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The engine's connection writes every key and argument with its exact length: Redis reads back what was sent. */
class RedisTextIT {

    private static final String ECHO = "local out = {} for i, k in ipairs(KEYS) do redis.call('SET', k, ARGV[i]) "
            + "out[#out + 1] = redis.call('STRLEN', k) out[#out + 1] = redis.call('GET', k) end return out";

    @Test
    @DisplayName("keys and arguments of plain, multi-byte and four-byte text reach Redis whole: a script stores each "
            + "under its key and reads back its UTF-8 length and its text")
    void textRoundTrip() throws Exception {
        String[] keys = {
            "redis-text:{t}:plain", "redis-text:{t}:库存", "redis-text:{t}:\uD83D\uDE00", "redis-text:{t}:empty"
        };
        String[] values = {"0f8fad5b-d9cb-469f-a165-70867728950e", "ü€库存", "\uD83D\uDE00\uD83D\uDE01 x", ""};
        try (Redis redis =
                Redis.connect("redis://127.0.0.1:" + TestEngines.get().redisPort(), List.of())) {
            List<Object> reply = redis.sync().eval(ECHO, ScriptOutputType.MULTI, keys, values);
            assertThat(reply).hasSize(2 * keys.length);
            for (int i = 0; i < keys.length; i++) {
                assertThat(reply.get(2 * i))
                        .as("bytes Redis holds for %s", keys[i])
                        .isEqualTo((long) values[i].getBytes(StandardCharsets.UTF_8).length);
                assertThat(reply.get(2 * i + 1))
                        .as("text read back for %s", keys[i])
                        .isEqualTo(values[i]);
                assertThat(redis.sync().get(keys[i])).isEqualTo(values[i]);
            }
            redis.sync().del(keys);
        }
    }
}
