package io.seckill.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.error.YAMLException;

class SaleFileTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("a YAML sale file reads as the admin API's body: unquoted instants stay text, numbers stay numbers")
    void yamlAsTheApiBody() throws Exception {
        Path f = Files.writeString(dir.resolve("sale.yaml"), """
                activity_id: 1001
                name: Double 12
                starts_at: 2026-12-12T12:00:00Z
                ends_at: 2026-12-12T13:00:00Z
                business_deadline_seconds: 300
                payment_timeout_seconds: 900
                skus:
                  - sku_id: 90001
                    price: 19.90
                    stock: 1000
                    buckets: 4
                """);
        Map<String, Object> body = SaleFile.read(f);
        assertThat(body)
                .containsEntry("activity_id", 1001)
                .containsEntry("name", "Double 12")
                .containsEntry("starts_at", "2026-12-12T12:00:00Z")
                .containsEntry("ends_at", "2026-12-12T13:00:00Z");
        assertThat(body.get("skus"))
                .isEqualTo(List.of(Map.of("sku_id", 90001, "price", 19.90, "stock", 1000, "buckets", 4)));
        Path json = Files.writeString(dir.resolve("sale.json"), "{\"activity_id\": 1001, \"name\": \"Double 12\"}");
        assertThat(SaleFile.read(json)).containsEntry("activity_id", 1001).containsEntry("name", "Double 12");
    }

    @Test
    @DisplayName("a YAML file that is not one mapping, repeats a key or names a Java type is refused")
    void refused() throws Exception {
        Path list = Files.writeString(dir.resolve("list.yml"), "- 1\n- 2\n");
        assertThatThrownBy(() -> SaleFile.read(list))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one mapping");
        Path twice = Files.writeString(dir.resolve("twice.yaml"), "name: a\nname: b\n");
        assertThatThrownBy(() -> SaleFile.read(twice)).isInstanceOf(YAMLException.class);
        Path typed = Files.writeString(dir.resolve("typed.yaml"), "name: !!java.io.File /etc/passwd\n");
        assertThatThrownBy(() -> SaleFile.read(typed)).isInstanceOf(YAMLException.class);
    }
}
