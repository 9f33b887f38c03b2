package io.seckill.support;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's documents, found from wherever the test runs (the repository or one of its modules). */
public final class RepoDocs {

    private RepoDocs() {}

    /** {@code docs/<name>} of the repository. */
    public static Path doc(String name) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path p = dir.resolve("docs").resolve(name);
            if (Files.exists(p)) {
                return p;
            }
        }
        throw new IllegalStateException(
                "docs/" + name + " not found above " + Path.of("").toAbsolutePath());
    }
}
