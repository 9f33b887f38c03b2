package io.seckill.cli;

import io.seckill.SeckillApplication;
import io.seckill.db.Migrations;
import io.seckill.mq.MqClients;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.springframework.boot.SpringApplication;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The server's executable: {@code serve} and the operator's commands. The dev kit's executable adds
 * the demo, the bench and the payment simulator to the same parser.
 */
@Command(
        name = "seckill",
        mixinStandardHelpOptions = true,
        version = "seckill 0.1.0",
        description = "Flash-sale order engine: Redis admission, RocketMQ, PostgreSQL orders.",
        subcommands = {
            SeckillCli.Serve.class,
            SeckillCli.Migrate.class,
            TokenCommand.class,
            SaleCommands.class,
            AdminCommands.Dlq.class,
            AdminCommands.Inspect.class,
            AdminCommands.Freeze.class,
            AdminCommands.Repair.class,
            AdminCommands.Invariants.class,
            AdminCommands.Reconcile.class,
            AdminCommands.AdjustStock.class,
            AdminCommands.CloseOut.class
        })
public final class SeckillCli implements Callable<Integer> {

    public static void main(String[] args) {
        run(commandLine(), args, List.of("serve"));
    }

    /**
     * Runs the parsed command and exits with its code - unless it is one of {@code longRunning} and
     * succeeded: a server keeps running on its own threads.
     */
    public static void run(CommandLine cli, String[] args, List<String> longRunning) {
        MqClients.useBinaryHeaders();
        int code = cli.execute(args);
        if (code != 0 || !longRunning.contains(args.length > 0 ? args[0] : "")) {
            System.exit(code);
        }
    }

    /** The parser of every subcommand. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new SeckillCli());
        // "adjust-stock 7 1 -3": a negative unit count is an argument, not an option
        cli.getSubcommands().get("adjust-stock").setUnmatchedOptionsArePositionalParams(true);
        return cli;
    }

    @Override
    public Integer call() {
        CommandLine.usage(this, System.out);
        return 2;
    }

    /**
     * A command that runs with Spring's arguments ({@code --name=value}, the rest of the line), refusing any that
     * carries a secret (Secrets.refuseOnCommandLine: the reason on stderr, exit code 2).
     */
    abstract static class WithSpringArgs implements Callable<Integer> {

        @CommandLine.Unmatched
        String[] springArgs = new String[0];

        @Override
        public final Integer call() {
            try {
                Secrets.refuseOnCommandLine(springArgs);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            return run(springArgs);
        }

        abstract int run(String[] args);
    }

    @Command(
            name = "serve",
            description =
                    "Run the application (roles from seckill.roles) against configured servers. "
                            + "Health, metrics and Prometheus answer on the management port (default 8081), not on the buyers' port.")
    static final class Serve extends WithSpringArgs {

        /**
         * What {@code serve} assumes unless configured: the actuator on its own port, so the buyers'
         * port (behind the load balancer) never exposes health details or metrics.
         */
        static final Map<String, Object> DEFAULTS = Map.of("management.server.port", 8081);

        @Override
        int run(String[] args) {
            SpringApplication app = new SpringApplication(SeckillApplication.class);
            app.setDefaultProperties(DEFAULTS);
            app.run(args);
            return 0;
        }
    }

    @Command(
            name = "migrate",
            description = "Apply the schema's migrations to the configured database and exit (the migrations Job "
                    + "run before a rollout; instances then start with seckill.migrate-at-start=false).")
    static final class Migrate extends WithSpringArgs {

        @Override
        int run(String[] args) {
            Migrations.Outcome outcome = Migrations.run(args);
            System.out.println(
                    "migrate: applied " + outcome.applied() + " migration(s); schema at version " + outcome.version());
            return 0;
        }
    }
}
