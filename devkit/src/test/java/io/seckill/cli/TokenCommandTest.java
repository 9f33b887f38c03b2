package io.seckill.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.seckill.api.TokenDecoders;
import io.seckill.config.SeckillProperties;
import io.seckill.support.IntegrationTest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.Jwt;
import picocli.CommandLine;

class TokenCommandTest {

    @Test
    @DisplayName(
            "seckill token mints a buyer's and an operator's token the server accepts; bad input is refused naming the option")
    void mints() {
        String user = IntegrationTest.USER_SECRET;
        String admin = IntegrationTest.ADMIN_SECRET;
        TokenDecoders decoders = new TokenDecoders(SeckillProperties.Jwt.secrets(user, admin), Clock.systemUTC());
        Jwt buyer = decoders.buyers()
                .decode(run(0, "token", "--user", "42", "--user-secret", user).trim());
        assertThat(buyer.getSubject()).isEqualTo("42");
        assertThat(buyer.getExpiresAt())
                .isBefore(
                        buyer.getIssuedAt() == null
                                ? java.time.Instant.now().plus(Duration.ofHours(2))
                                : buyer.getIssuedAt().plus(Duration.ofHours(2)));
        Jwt operator = decoders.admins()
                .decode(run(0, "token", "--admin", "alice", "--admin-secret", admin, "--ttl", "PT5M")
                        .trim());
        assertThat(TokenDecoders.scopes(operator)).contains(TokenDecoders.ADMIN_SCOPE);
        assertThat(run(2, "token", "--user", "0", "--user-secret", user)).contains("--user");
        assertThat(run(2, "token", "--user", "7", "--user-secret", "short")).contains("--user-secret");
        assertThat(run(2, "token", "--user", "7", "--admin", "x", "--user-secret", user))
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
