package io.seckill.bench;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.entry.AdmissionEntry;
import io.seckill.support.IntegrationTest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import picocli.CommandLine;

/** {@code ./seckill bench --url}: a running instance's sale measured beside its own floor. */
class RemoteBenchIT extends IntegrationTest {

    @Autowired
    AdmissionEntry entry;

    @TempDir
    Path dir;

    @Test
    @DisplayName("bench --url against a running instance's entry: the floor (a sale that does not exist) is answered "
            + "404, then the sale sells out - each of its 5 units admitted once, the other buyers answered 409 - and "
            + "the refusals are put beside the floor; every invariant holds")
    void aSaleBesideItsFloor() throws Exception {
        long activityId = openSale(5);
        Path secret = Files.writeString(dir.resolve("user-secret"), USER_SECRET);
        BenchCommand bench = new BenchCommand();
        new CommandLine(bench)
                .parseArgs(
                        "--url",
                        "http://127.0.0.1:" + entry.port(),
                        "--activity",
                        Long.toString(activityId),
                        "--seconds",
                        "2",
                        "--concurrency",
                        "4",
                        "--user-secret-file",
                        secret.toString());
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        int exit = bench.remote(new PrintStream(printed, true, UTF_8));

        String out = printed.toString(UTF_8);
        assertThat(exit).as(out).isZero();
        assertThat(out)
                .containsPattern("floor, a sale that does not exist \\(\\S+/activities/"
                        + BenchCommand.REMOTE_FLOOR_ACTIVITY + "/skus/1/reservations\\): [\\d,]+ answers/s, "
                        + "statuses \\{404=\\d+}")
                .containsPattern("/activities/" + activityId + "/skus/1/reservations: .*statuses \\{202=5, 409=\\d+}")
                .containsPattern(
                        "the sale: [\\d,]+ answers/s, p99 [\\d.]+ ms, by status: 202 [\\d.,]+/s, 409 [\\d,]+/s")
                .containsPattern("refusals \\(409\\) / floor = \\d+\\.\\d\\dx");
        awaitSettled(activityId, 5);
        assertInvariants(activityId, true);
    }
}
