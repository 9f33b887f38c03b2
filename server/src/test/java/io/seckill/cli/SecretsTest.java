package io.seckill.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretsTest {

    @Test
    @DisplayName("serve refuses a secret given as an argument and names the environment variable to use instead; "
            + "other properties pass")
    void serveRefusesSecretArguments() {
        for (String arg : new String[] {
            "--seckill.jwt.user-secret=s",
            "--seckill.jwt.admin-secret=s",
            "--seckill.ids.keys.1=s",
            "--seckill.payment.callback-secret=s",
            "--seckill.mq.secret-key=s",
            "--spring.datasource.password=s",
            "--seckill.redis-cluster=rediss://seckill:pw@redis-0:6379,rediss://seckill:pw@redis-1:6379"
        }) {
            assertThatThrownBy(() -> Secrets.refuseOnCommandLine(new String[] {"--server.port=8080", arg}))
                    .as(arg)
                    .hasMessageContaining("is not taken as an argument")
                    .hasMessageContaining("configtree");
        }
        assertThatThrownBy(() -> Secrets.refuseOnCommandLine(new String[] {"--seckill.jwt.admin-secret=s"}))
                .hasMessageContaining("SECKILL_JWT_ADMINSECRET");
        assertThatCode(() -> Secrets.refuseOnCommandLine(new String[] {
                    "--seckill.roles=api",
                    "--seckill.jwt.jwks-uri=https://idp/jwks",
                    "--seckill.redis-cluster=rediss://redis-0:6379",
                    "serve"
                }))
                .doesNotThrowAnyException();
    }

    @Test
    @DisplayName("the environment variable of a property is Spring Boot's relaxed form")
    void environmentVariables() {
        assertThat(Secrets.environmentVariable("seckill.jwt.user-secret")).isEqualTo("SECKILL_JWT_USERSECRET");
        assertThat(Secrets.environmentVariable("seckill.ids.keys.1")).isEqualTo("SECKILL_IDS_KEYS_1");
        assertThat(Secrets.environmentVariable("spring.datasource.password")).isEqualTo("SPRING_DATASOURCE_PASSWORD");
    }

    @Test
    @DisplayName("a secret file's content is read trimmed; without a file the environment's value is taken; an "
            + "unreadable file is refused naming the option")
    void secretFiles(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("s"), "  the-secret\n");
        assertThat(Secrets.fromFileOr(file, "from-env", "--x-file")).isEqualTo("the-secret");
        assertThat(Secrets.fromFileOr(null, "from-env", "--x-file")).isEqualTo("from-env");
        assertThatThrownBy(() -> Secrets.fromFileOr(dir.resolve("none"), null, "--x-file"))
                .hasMessageStartingWith("--x-file: cannot read");
    }

    @Test
    @DisplayName("the operator's tools read a secret by the pods' variable name (SECKILL_JWT_ADMINSECRET) or by the "
            + "tools' own (SECKILL_JWT_ADMIN_SECRET), the pods' first")
    void secretsFromEitherEnvironmentName() {
        assertThat(Secrets.fromEnvironment(Map.of("SECKILL_JWT_ADMINSECRET", "pod"), "seckill.jwt.admin-secret"))
                .isEqualTo("pod");
        assertThat(Secrets.fromEnvironment(Map.of("SECKILL_JWT_ADMIN_SECRET", "tool"), "seckill.jwt.admin-secret"))
                .isEqualTo("tool");
        assertThat(Secrets.fromEnvironment(
                        Map.of("SECKILL_JWT_USERSECRET", "pod", "SECKILL_JWT_USER_SECRET", "tool"),
                        "seckill.jwt.user-secret"))
                .isEqualTo("pod");
        assertThat(Secrets.fromEnvironment(Map.of(), "seckill.jwt.user-secret")).isNull();
    }
}
