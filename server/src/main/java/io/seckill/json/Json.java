package io.seckill.json;

import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.JsonRecyclerPools;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON of messages, events and the admission entry's answers: snake_case, deterministic for a given value.
 * Its parsers' and writers' buffers are kept per thread: every thread that reads or writes it is a
 * platform thread of a fixed pool (the entry's answering threads, the consumers, the relay). Jackson's
 * default shares one pool between threads, a lock-free deque whose polls and inserts were a fifth of
 * the JSON time of the entry's answering threads.
 */
public final class Json {

    public static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .recyclerPool(JsonRecyclerPools.threadLocalPool())
                    .build())
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private Json() {}

    public static byte[] bytes(Object value) {
        return MAPPER.writeValueAsBytes(value);
    }

    public static String text(Object value) {
        return MAPPER.writeValueAsString(value);
    }

    public static <T> T read(byte[] body, Class<T> type) {
        return MAPPER.readValue(body, type);
    }
}
