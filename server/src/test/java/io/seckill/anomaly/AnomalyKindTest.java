package io.seckill.anomaly;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.state.HashStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class AnomalyKindTest {

    @Test
    @DisplayName("every refusal word compensate.lua can answer names a kind of its own, not the catch-all")
    void everyCompensationRefusalHasAKind() throws IOException {
        List<String> words = new ArrayList<>();
        for (String script : List.of("lua/compensate.lua", "lua/lib/reservation.lua")) {
            Matcher m = Pattern.compile("\\{-\\d, '([A-Z_]+)'").matcher(lua(script));
            while (m.find()) {
                words.add(m.group(1));
            }
            Matcher conflict = Pattern.compile("conflict_word = '([A-Z_]+)'").matcher(lua(script));
            while (conflict.find()) {
                words.add(conflict.group(1));
            }
        }
        assertThat(words).as("refusals read from the Lua").contains("ORDER_ALREADY_EXISTS", "COMPENSATION_ID_CONFLICT");
        for (String w : words) {
            assertThat(AnomalyKind.compensationRefused(w)).as(w).isNotEqualTo(AnomalyKind.COMPENSATION_REFUSED_OTHER);
        }
        for (HashStatus s : HashStatus.values()) {
            assertThat(AnomalyKind.compensationRefused("INVALID_STATUS:" + s.name()))
                    .isEqualTo(AnomalyKind.valueOf("COMPENSATION_INVALID_STATUS_" + s.name()));
        }
        for (String w : List.of("RESERVATION_UNKNOWN", "STATE_CONFLICT", "SKU_UNKNOWN")) {
            assertThat(AnomalyKind.compensationRefused(w)).isEqualTo(AnomalyKind.valueOf("COMPENSATION_" + w));
        }
        assertThat(AnomalyKind.compensationRefused("SOMETHING_NEW")).isEqualTo(AnomalyKind.COMPENSATION_REFUSED_OTHER);
    }

    @Test
    @DisplayName("a COMPENSATED reservation seen in any other hash status has a kind of its own; an unknown status the "
            + "catch-all")
    void compensatedButRedisCoversEveryStatus() {
        for (HashStatus s : HashStatus.values()) {
            if (s != HashStatus.COMPENSATED) {
                assertThat(AnomalyKind.compensatedButRedis(s.name()).name())
                        .isEqualTo("COMPENSATED_BUT_REDIS_" + s.name());
            }
        }
        assertThat(AnomalyKind.compensatedButRedis("GARBLED")).isEqualTo(AnomalyKind.COMPENSATED_BUT_REDIS_OTHER);
    }

    @Test
    @DisplayName("the order consumer's quarantine reasons are kinds")
    void quarantineReasons() {
        for (String reason : List.of("PAYLOAD_CONFLICT", "FORGED", "UNREADABLE")) {
            assertThat(AnomalyKind.quarantined(reason).name()).isEqualTo("INBOX_" + reason);
        }
    }

    private static String lua(String path) throws IOException {
        try (InputStream in = AnomalyKindTest.class.getClassLoader().getResourceAsStream(path)) {
            assertThat(in).as(path).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
