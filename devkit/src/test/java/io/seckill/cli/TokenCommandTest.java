package io.seckill.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.api.TokenDecoders;
import io.seckill.config.SeckillProperties;
import io.seckill.support.IntegrationTest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.security.oauth2.jwt.Jwt;
import picocli.CommandLine;

class TokenCommandTest {

    @Test
    @DisplayName(
            "seckill token mints a buyer's and an operator's token the server accepts; bad input is refused naming the option")
    void mints(@TempDir Path dir) throws Exception {
        String userSecret = IntegrationTest.USER_SECRET;
        String adminSecret = IntegrationTest.ADMIN_SECRET;
        String user =
                Files.writeString(dir.resolve("user-secret"), userSecret + "\n").toString();
        String admin =
                Files.writeString(dir.resolve("admin-secret"), adminSecret).toString();
        String shortSecret = Files.writeString(dir.resolve("short"), "short").toString();
        TokenDecoders decoders =
                new TokenDecoders(SeckillProperties.Jwt.secrets(userSecret, adminSecret), Clock.systemUTC());
        Jwt buyer = decoders.buyers()
                .decode(run(0, "token", "--user", "42", "--user-secret-file", user)
                        .trim());
        assertThat(buyer.getSubject()).isEqualTo("42");
        assertThat(buyer.getExpiresAt())
                .isBefore(
                        buyer.getIssuedAt() == null
                                ? java.time.Instant.now().plus(Duration.ofHours(2))
                                : buyer.getIssuedAt().plus(Duration.ofHours(2)));
        Jwt operator = decoders.admins()
                .decode(run(0, "token", "--admin", "alice", "--admin-secret-file", admin, "--ttl", "PT5M")
                        .trim());
        assertThat(TokenDecoders.scopes(operator)).contains(TokenDecoders.ADMIN_SCOPE);
        assertThat(run(2, "token", "--user", "0", "--user-secret-file", user)).contains("--user");
        assertThat(run(2, "token", "--user", "7", "--user-secret-file", shortSecret))
                .contains("--user-secret-file");
        assertThat(run(
                        2,
                        "token",
                        "--user",
                        "7",
                        "--user-secret-file",
                        dir.resolve("missing").toString()))
                .contains("--user-secret-file: cannot read");
        Jwt viewer = decoders.admins()
                .decode(run(0, "token", "--admin", "bob", "--scope", "view", "--admin-secret-file", admin)
                        .trim());
        assertThat(TokenDecoders.scopes(viewer)).containsExactly(TokenDecoders.VIEW_SCOPE);
        assertThat(run(2, "token", "--admin", "bob", "--scope", "root", "--admin-secret-file", admin))
                .contains("--scope");
        assertThat(run(2, "token", "--user", "7", "--admin", "x", "--user-secret-file", user))
                .containsIgnoringCase("mutually exclusive");
    }

    private static String run(int expected, String... args) {
        StringWriter out = new StringWriter();
        CommandLine cli = SeckillCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(out, true));
        assertThat(cli.execute(args)).as(out.toString()).isEqualTo(expected);
        return out.toString();
    }
}
