package io.seckill.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ScriptReplyTest {

    @Test
    @DisplayName("a {code, word} reply decodes whether Redis sent the word as bytes or text")
    void codeAndWord() {
        ScriptReply done = ScriptReply.of(List.of(1L, "PROJECTED".getBytes(StandardCharsets.UTF_8)));
        assertThat(done).isEqualTo(new ScriptReply(1, "PROJECTED"));
        assertThat(done.done()).isTrue();
        assertThat(done.refused()).isFalse();
        ScriptReply refused = ScriptReply.of(List.of(-1L, "RESERVATION_MISSING"));
        assertThat(refused.refused()).isTrue();
        assertThat(refused.word()).isEqualTo("RESERVATION_MISSING");
        assertThat(ScriptReply.of(List.of(2L)).word()).as("a code alone").isNull();
    }

    @Test
    @DisplayName("a reply without a code is an error that shows the reply")
    void noCode() {
        assertThatThrownBy(() -> ScriptReply.of(List.of())).hasMessageContaining("without a code");
        assertThatThrownBy(() -> ScriptReply.of(List.of("OK"))).hasMessageContaining("[OK]");
    }

    @Test
    @DisplayName("elements past the end, or nil, read as null text and zero")
    void absentElements() {
        List<Object> reply = Arrays.asList(1L, null, "7");
        assertThat(ScriptReply.text(reply, 1)).isNull();
        assertThat(ScriptReply.text(reply, 9)).isNull();
        assertThat(ScriptReply.number(reply, 2)).isEqualTo(7);
        assertThat(ScriptReply.number(reply, 9)).isZero();
    }
}
