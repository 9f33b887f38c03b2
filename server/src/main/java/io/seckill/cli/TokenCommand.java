package io.seckill.cli;

import io.seckill.api.TokenDecoders;
import io.seckill.api.Tokens;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Mints a bearer token with the instance's secret: a buyer's, to try the API with curl, or an operator's. */
@Command(
        name = "token",
        mixinStandardHelpOptions = true,
        description =
                "Print a bearer token for a buyer (--user ID) or an operator (--admin NAME), signed with the secret.")
final class TokenCommand implements Callable<Integer> {

    static final class Who {
        @Option(names = "--user", description = "the buyer's user id (a positive integer)")
        Long user;

        @Option(names = "--admin", description = "the operator's name (an operator's token, with --scope)")
        String admin;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Who who;

    @Option(
            names = "--user-secret-file",
            description = "a file holding seckill.jwt.user-secret (default: $SECKILL_JWT_USER_SECRET)")
    Path userSecretFile;

    @Option(
            names = "--admin-secret-file",
            description = "a file holding seckill.jwt.admin-secret (default: $SECKILL_JWT_ADMIN_SECRET)")
    Path adminSecretFile;

    @Option(
            names = "--scope",
            description = "an operator token's scope: view (the dashboard, inspect, invariants), operate (every "
                    + "operation) or admin (both; default ${DEFAULT-VALUE})")
    String scope = "admin";

    @Option(names = "--ttl", description = "how long the token is valid (default ${DEFAULT-VALUE})")
    Duration ttl = Duration.ofHours(1);

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (ttl.isNegative() || ttl.isZero() || ttl.toDays() > 30) {
            spec.commandLine().getErr().println("--ttl: must be between 1s and 30 days");
            return 2;
        }
        String userSecret;
        String adminSecret;
        try {
            userSecret = Secrets.fromFileOr(
                    userSecretFile,
                    Secrets.fromEnvironment(System.getenv(), "seckill.jwt.user-secret"),
                    "--user-secret-file");
            adminSecret = Secrets.fromFileOr(
                    adminSecretFile,
                    Secrets.fromEnvironment(System.getenv(), "seckill.jwt.admin-secret"),
                    "--admin-secret-file");
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println(e.getMessage());
            return 2;
        }
        if (who.user != null) {
            if (who.user < 1) {
                spec.commandLine().getErr().println("--user: must be a positive integer");
                return 2;
            }
            return print(userSecret, "--user-secret-file", () -> Tokens.user(userSecret, who.user, ttl));
        }
        String granted = switch (scope) {
            case "view" -> TokenDecoders.VIEW_SCOPE;
            case "operate" -> TokenDecoders.OPERATE_SCOPE;
            case "admin" -> TokenDecoders.ADMIN_SCOPE;
            default -> null;
        };
        if (granted == null) {
            spec.commandLine().getErr().println("--scope: one of view, operate, admin");
            return 2;
        }
        return print(adminSecret, "--admin-secret-file", () -> Tokens.operator(adminSecret, who.admin, granted, ttl));
    }

    private int print(String secret, String option, java.util.function.Supplier<String> token) {
        if (secret == null || secret.length() < 32) {
            spec.commandLine()
                    .getErr()
                    .println(option + ": the instance's secret is required (at least 32 characters)");
            return 2;
        }
        spec.commandLine().getOut().println(token.get());
        return 0;
    }
}
