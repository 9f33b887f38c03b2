package io.seckill.refusal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class InputTest {

    @Test
    @DisplayName(
            "free text is refused naming the field when missing, too long or carrying control characters; tabs and line breaks pass")
    void text() {
        assertThat(Input.text("reason", "stock count\twas off\r\nby one", 100))
                .isEqualTo("stock count\twas off\r\nby one");
        assertThat(Input.text("name", "秒杀 🎉", 5)).isEqualTo("秒杀 🎉");
        assertThatThrownBy(() -> Input.text("name", " ", 10))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.field()).isEqualTo("name"));
        assertThatThrownBy(() -> Input.text("name", "abcdef", 5))
                .hasMessage("name: must be at most 5 characters, got 6");
        assertThatThrownBy(() -> Input.text("reason", "a\u0000b", 10))
                .hasMessage("reason: must not contain control characters (U+0000 at 1)");
        assertThatThrownBy(() -> Input.text("reason", "\u001b[2J", 10)).isInstanceOf(Refusal.class);
        assertThatThrownBy(() -> Input.text("reason", "a\u0085", 10)).isInstanceOf(Refusal.class);
    }
}
