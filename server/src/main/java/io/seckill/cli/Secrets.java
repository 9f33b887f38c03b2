package io.seckill.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Secrets reach the command line's programs from the environment or from files, never as arguments: an argument is
 * in every process listing ({@code ps}) and in shell histories. A tool takes {@code --x-secret-file PATH} (a mounted
 * secret, say) or the environment variable it names; {@code serve} refuses a secret property given as an argument
 * and says where it goes instead.
 */
public final class Secrets {

    /** Properties whose values are secrets: refused as {@code serve} arguments. */
    static final List<Pattern> SECRET_PROPERTIES = List.of(
            Pattern.compile("seckill\\.jwt\\.(user-secret|admin-secret|usersecret|adminsecret)"),
            Pattern.compile("seckill\\.ids\\.keys(\\.|\\[).*"),
            Pattern.compile("seckill\\.payment\\.(callback-secret|callbacksecret)"),
            Pattern.compile("seckill\\.mq\\.(secret-key|secretkey)"),
            Pattern.compile("spring\\.datasource\\.password"),
            Pattern.compile("spring\\.data\\.redis\\.password"));

    /** Redis addresses, secret when they carry a user and password ({@code rediss://user:password@host:port}). */
    static final Pattern REDIS_ADDRESSES = Pattern.compile("seckill\\.(redis-uri|redisuri|redis-cluster|rediscluster)");

    private Secrets() {}

    /**
     * A secret from the environment by the name the pods use ({@code SECKILL_JWT_ADMINSECRET}, Spring Boot's form of
     * the property, as the manifests set it) or by the tools' older spelling ({@code SECKILL_JWT_ADMIN_SECRET}); the
     * first that is set. One environment serves the server and the operator's commands alike.
     */
    public static String fromEnvironment(Map<String, String> env, String property) {
        String canonical = environmentVariable(property);
        String value = env.get(canonical);
        if (value != null && !value.isBlank()) {
            return value;
        }
        String spelled = "SECKILL_"
                + property.substring("seckill.".length())
                        .toUpperCase(Locale.ROOT)
                        .replace('.', '_')
                        .replace('-', '_');
        return env.get(spelled);
    }

    /** The secret in {@code file} (its content, trimmed), or {@code fallback} (an environment variable's) without one. */
    public static String fromFileOr(Path file, String fallback, String option) {
        if (file == null) {
            return fallback;
        }
        try {
            return Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IllegalArgumentException(option + ": cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Throws when an argument ({@code --name=value}) sets a secret property; the message says how to pass it instead:
     * the environment variable Spring Boot reads it from, or a file ({@code spring.config.import=configtree:DIR/}).
     */
    public static void refuseOnCommandLine(String[] args) {
        for (String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                continue;
            }
            String name = arg.substring(2, arg.indexOf('=')).toLowerCase(Locale.ROOT);
            String value = arg.substring(arg.indexOf('=') + 1);
            if (isSecret(name) || (REDIS_ADDRESSES.matcher(name).matches() && value.contains("@"))) {
                throw new IllegalArgumentException(name + ": a secret is not taken as an argument (every process "
                        + "listing shows it): set " + environmentVariable(name) + " in the environment, or mount it as "
                        + "a file and add --spring.config.import=configtree:<its folder>/");
            }
        }
    }

    /** Whether {@code property} holds a secret. */
    public static boolean isSecret(String property) {
        String name = property.toLowerCase(Locale.ROOT);
        return SECRET_PROPERTIES.stream().anyMatch(p -> p.matcher(name).matches());
    }

    /** The environment variable Spring Boot binds to {@code property}. */
    public static String environmentVariable(String property) {
        return property.replace("-", "")
                .replace('.', '_')
                .replace("[", "_")
                .replace("]", "")
                .toUpperCase(Locale.ROOT);
    }
}
