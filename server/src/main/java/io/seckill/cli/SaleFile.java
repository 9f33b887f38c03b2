package io.seckill.cli;

import io.seckill.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * A sale file: the admin API's body ({@code activity_id}, {@code name}, {@code starts_at}, ..., {@code skus}) as JSON,
 * or as YAML when the name ends in {@code .yaml} or {@code .yml}. YAML is read with plain types only (no tags, no
 * objects), and an unquoted {@code 2026-12-12T12:00:00Z} stays the text the API parses rather than a date.
 */
final class SaleFile {

    private SaleFile() {}

    @SuppressWarnings("unchecked")
    static Map<String, Object> read(Path file) throws IOException {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (!name.endsWith(".yaml") && !name.endsWith(".yml")) {
            return Json.read(Files.readAllBytes(file), Map.class);
        }
        LoaderOptions loading = new LoaderOptions();
        loading.setAllowDuplicateKeys(false);
        Yaml yaml = new Yaml(
                new SafeConstructor(loading),
                new Representer(new DumperOptions()),
                new DumperOptions(),
                loading,
                new TimestampsAsText());
        Object doc = yaml.load(Files.readString(file, StandardCharsets.UTF_8));
        if (!(doc instanceof Map<?, ?> body)) {
            throw new IllegalArgumentException("a sale file holds one mapping (activity_id, name, starts_at, ...), not "
                    + (doc == null ? "nothing" : doc.getClass().getSimpleName()));
        }
        return (Map<String, Object>) body;
    }

    /** YAML 1.1's implicit types but timestamps: those stay strings, as the API reads them. */
    private static final class TimestampsAsText extends Resolver {
        @Override
        protected void addImplicitResolvers() {
            addImplicitResolver(Tag.BOOL, BOOL, "yYnNtTfFoO");
            addImplicitResolver(Tag.INT, INT, "-+0123456789");
            addImplicitResolver(Tag.FLOAT, FLOAT, "-+0123456789.");
            addImplicitResolver(Tag.NULL, NULL, "~nN\0");
            addImplicitResolver(Tag.NULL, EMPTY, null);
            addImplicitResolver(Tag.MERGE, MERGE, "<");
        }
    }
}
