package io.seckill.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.Jwt;

import io.seckill.api.TokenDecoders;
import io.seckill.config.SeckillProperties;
import picocli.CommandLine;

class TokenCommandTest {

    private static final String USER = "token-user-secret-0123456789abcdef0123456789";
    private static final String ADMIN = "token-admin-secret-0123456789abcdef012345678";

    @Test
    @DisplayName("seckill token mints a buyer's and an operator's token the server accepts; bad input is refused naming the option")
    void mints() {
        TokenDecoders decoders = new TokenDecoders(SeckillProperties.Jwt.secrets(USER, ADMIN), Clock.systemUTC());
        Jwt buyer = decoders.buyers().decode(run(0, "token", "--user", "42", "--user-secret", USER).trim());
        assertThat(buyer.getSubject()).isEqualTo("42");
        assertThat(buyer.getExpiresAt()).isBefore(buyer.getIssuedAt() == null ? java.time.Instant.now().plus(Duration.ofHours(2))
                : buyer.getIssuedAt().plus(Duration.ofHours(2)));
        Jwt admin = decoders.admins().decode(run(0, "token", "--admin", "alice", "--admin-secret", ADMIN, "--ttl", "PT5M").trim());
        assertThat(TokenDecoders.scopes(admin)).contains(TokenDecoders.ADMIN_SCOPE);
        assertThat(run(2, "token", "--user", "0", "--user-secret", USER)).contains("--user");
        assertThat(run(2, "token", "--user", "7", "--user-secret", "short")).contains("--user-secret");
        assertThat(run(2, "token", "--user", "7", "--admin", "x", "--user-secret", USER)).containsIgnoringCase("mutually exclusive");
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
