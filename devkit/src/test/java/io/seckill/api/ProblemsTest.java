package io.seckill.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.seckill.json.Json;
import io.seckill.refusal.Refusal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ProblemsTest {

    private static JsonNode read(byte[] body) {
        return Json.MAPPER.readTree(body);
    }

    private static List<String> names(JsonNode doc) {
        List<String> out = new ArrayList<>();
        doc.propertyNames().forEach(out::add);
        return out;
    }

    @Test
    @DisplayName("a refusal's document: the RFC 9457 members in order, then its instance, field and extra properties "
            + "as the caller gave them")
    void refusalDocument() {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("reservation_id", "6f1c2b2e-0000-4000-8000-000000000001");
        extra.put("retry_after_seconds", 1);
        extra.put("counts", Map.of("redis", 3));
        extra.put("none", null);
        Refusal r = new Refusal(Refusal.Kind.CONFLICT, "ALREADY_RESERVED", "held \"already\"", "request_id", extra);

        JsonNode doc = read(Problems.json(r, "/api/v1/activities/7/skus/1/reservations"));

        assertThat(names(doc))
                .containsExactly(
                        "type",
                        "title",
                        "status",
                        "detail",
                        "code",
                        "instance",
                        "field",
                        "reservation_id",
                        "retry_after_seconds",
                        "counts",
                        "none");
        assertThat(doc.get("type").asString()).isEqualTo("https://seckill.io/problems/already-reserved");
        assertThat(doc.get("title").asString()).isEqualTo("ALREADY_RESERVED");
        assertThat(doc.get("status").asInt()).isEqualTo(409);
        assertThat(doc.get("detail").asString()).isEqualTo("held \"already\"");
        assertThat(doc.get("code").asString()).isEqualTo("ALREADY_RESERVED");
        assertThat(doc.get("instance").asString()).isEqualTo("/api/v1/activities/7/skus/1/reservations");
        assertThat(doc.get("field").asString()).isEqualTo("request_id");
        assertThat(doc.get("retry_after_seconds").isInt()).isTrue();
        assertThat(doc.get("counts").get("redis").asInt()).isEqualTo(3);
        assertThat(doc.get("none").isNull()).isTrue();
    }

    @Test
    @DisplayName("without instance or field those members are absent; a null detail is written as null; the same "
            + "code gives the same type each time, as Spring's problem details carry it")
    void plainDocument() {
        JsonNode doc = read(Problems.json(503, "ADMISSION_PAUSED", null));
        assertThat(names(doc)).containsExactly("type", "title", "status", "detail", "code");
        assertThat(doc.get("detail").isNull()).isTrue();
        assertThat(doc.get("status").asInt()).isEqualTo(503);

        String again =
                read(Problems.json(503, "ADMISSION_PAUSED", "x")).get("type").asString();
        assertThat(again).isEqualTo(doc.get("type").asString());
        assertThat(Problems.problem(org.springframework.http.HttpStatus.SERVICE_UNAVAILABLE, "ADMISSION_PAUSED", "x")
                        .getType()
                        .toString())
                .isEqualTo(again);
    }

    @Test
    @DisplayName("text is escaped as JSON: a detail with quotes, a backslash, a control character and non-ASCII reads "
            + "back as written")
    void escaping() {
        String detail = "a \"quoted\" \\ path\nwith caf\u00e9 and \u0001";
        byte[] body = Problems.json(400, "INVALID_REQUEST", detail);
        assertThat(read(body).get("detail").asString()).isEqualTo(detail);
        assertThat(new String(body, StandardCharsets.UTF_8)).doesNotContain("\n");
    }

    @Test
    @DisplayName("an extra property named like a member is refused: it would have replaced the member")
    void extraCannotReplaceAMember() {
        Refusal r = new Refusal(Refusal.Kind.CONFLICT, "SOLD_OUT", "sold out", null, Map.of("status", "x"));
        assertThatThrownBy(() -> Problems.json(r, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("status");
    }
}
