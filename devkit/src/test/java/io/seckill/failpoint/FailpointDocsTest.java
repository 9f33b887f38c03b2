package io.seckill.failpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.support.RepoDocs;
import java.io.IOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The failpoint table of docs/DESIGN.md is the registry, row for row. */
class FailpointDocsTest {

    @Test
    @DisplayName("docs/DESIGN.md lists every registered failpoint with its place and fault rows, and nothing else")
    void docsFollowTheRegistry() throws IOException {
        Map<String, String> documented = new LinkedHashMap<>();
        for (String line : Files.readAllLines(RepoDocs.doc("DESIGN.md"))) {
            if (line.startsWith("| `after_") || line.startsWith("| `during_")) {
                String[] cells = line.split("\\|");
                documented.put(cells[1].trim().replace("`", ""), cells[2].trim() + " | " + cells[3].trim());
            }
        }
        Map<String, String> registered = new LinkedHashMap<>();
        for (Failpoint f : Failpoint.values()) {
            registered.put(
                    f.id(),
                    f.where() + " | "
                            + f.faultRows().stream().map(String::valueOf).collect(Collectors.joining(", ")));
        }
        assertThat(documented).isEqualTo(registered);
    }
}
