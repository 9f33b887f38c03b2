package io.seckill.mq;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/** The JSON of messages and events: snake_case, deterministic for a given value. */
public final class Json {

    public static final JsonMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private Json() {
    }

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
