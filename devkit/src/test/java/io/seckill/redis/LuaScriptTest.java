package io.seckill.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LuaScriptTest {

    @Test
    @DisplayName("a script that includes the shared reservation guards carries them once, and no include line is left")
    void includes() {
        for (String name :
                new String[] {"compensate", "release_on_cancel", "project_order_status", "project_order_created"}) {
            String source = LuaScript.load(name).source();
            assertThat(source).as(name).doesNotContain("--@include");
            assertThat(source.split("local function reservation_status", -1))
                    .as(name)
                    .hasSize(2);
            assertThat(source).as(name).contains("reservation_status(reservationKey, reservationId)");
        }
        assertThat(LuaScript.load("reserve").source()).doesNotContain("reservation_status(");
        assertThatThrownBy(() -> LuaScript.load("no_such_script")).hasMessageContaining("lua/no_such_script.lua");
    }
}
