package io.seckill.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * docs/CONFIGURATION.md against what the server binds: every property of the configuration metadata the compiler
 * writes for {@link SeckillProperties} and every {@code @Value("${seckill...}")} has a row, and every property a
 * row names exists.
 */
class ConfigurationDocsTest {

    private static final Path METADATA = Path.of("target", "classes", "META-INF", "spring-configuration-metadata.json");
    private static final Path SOURCES = Path.of("src", "main", "java");
    private static final Path DOC = Path.of("..", "docs", "CONFIGURATION.md");
    private static final Pattern METADATA_NAME = Pattern.compile("\"name\"\\s*:\\s*\"(seckill\\.[a-z0-9.-]+)\"");
    private static final Pattern VALUE_NAME = Pattern.compile("@Value\\(\"\\$\\{(seckill\\.[a-z0-9.-]+)");
    private static final Pattern DOC_NAME = Pattern.compile("`(seckill\\.[a-z0-9.<>-]+)`");

    private static Set<String> bound() throws IOException {
        Set<String> names = new TreeSet<>();
        Matcher m = METADATA_NAME.matcher(Files.readString(METADATA));
        while (m.find()) {
            names.add(m.group(1));
        }
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher v = VALUE_NAME.matcher(Files.readString(f));
                while (v.find()) {
                    names.add(v.group(1));
                }
            }
        }
        // the metadata's groups (seckill.jwt, ...) hold properties; they are not properties themselves
        Set<String> groups = new TreeSet<>();
        for (String n : names) {
            if (names.stream().anyMatch(o -> o.startsWith(n + "."))) {
                groups.add(n);
            }
        }
        names.removeAll(groups);
        return names;
    }

    /**
     * Whether a row names {@code property}: in full ({@code `seckill.a.b`}), as the head of a map or named family
     * ({@code `seckill.ids.keys.<version>`}), or as a sibling on a row that names one in full
     * ({@code `seckill.a.b` / `c`}).
     */
    private static boolean documented(String property, List<String> lines) {
        String prefix = property.substring(0, property.lastIndexOf('.') + 1);
        String last = property.substring(prefix.length());
        for (String line : lines) {
            if (line.contains("`" + property + "`") || line.contains("`" + property + ".<")) {
                return true;
            }
            if (line.startsWith("| `" + prefix)
                    && Pattern.compile("`(" + Pattern.quote(prefix) + ")?" + Pattern.quote(last) + "`")
                            .matcher(line)
                            .find()) {
                return true;
            }
        }
        return false;
    }

    @Test
    @DisplayName("every property the server binds has a row in docs/CONFIGURATION.md")
    void everyPropertyDocumented() throws IOException {
        Set<String> bound = bound();
        assertThat(bound)
                .as("the metadata and the sources were read")
                .contains("seckill.admission.entry-port", "seckill.close-out.retention")
                .hasSizeGreaterThan(80);
        List<String> lines = Files.readAllLines(DOC);
        Set<String> missing = new TreeSet<>();
        for (String p : bound) {
            if (!documented(p, lines)) {
                missing.add(p);
            }
        }
        assertThat(missing)
                .as("properties without a row in docs/CONFIGURATION.md")
                .isEmpty();
    }

    @Test
    @DisplayName("every property docs/CONFIGURATION.md names is one the server binds")
    void noStaleRows() throws IOException {
        Set<String> bound = bound();
        Set<String> stale = new TreeSet<>();
        Matcher m = DOC_NAME.matcher(Files.readString(DOC));
        while (m.find()) {
            String named = m.group(1);
            String head = named.contains(".<") ? named.substring(0, named.indexOf(".<")) : named;
            boolean known = bound.contains(head)
                    || head.equals("seckill.failpoints")
                    || bound.stream().anyMatch(b -> b.startsWith(head + "."));
            if (!known) {
                stale.add(named);
            }
        }
        assertThat(stale).as("rows naming a property nothing binds").isEmpty();
    }
}
