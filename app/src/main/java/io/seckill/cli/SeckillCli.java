package io.seckill.cli;

import java.util.List;
import java.util.concurrent.Callable;

import org.springframework.boot.SpringApplication;

import io.seckill.SeckillApplication;
import io.seckill.demo.DemoCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The one executable: {@code seckill <subcommand>}. */
@Command(name = "seckill", mixinStandardHelpOptions = true, version = "seckill 0.1.0",
        description = "Flash-sale order engine: Redis admission, RocketMQ, PostgreSQL orders.",
        subcommands = {SeckillCli.Serve.class, DemoCommand.class, io.seckill.bench.BenchCommand.class,
                io.seckill.dlq.DlqCommand.class, io.seckill.paysim.PaySimCommand.class, AdminCommands.Inspect.class,
                AdminCommands.Freeze.class, AdminCommands.Repair.class, AdminCommands.Invariants.class,
                AdminCommands.Reconcile.class, AdminCommands.AdjustStock.class, AdminCommands.CloseOut.class})
public final class SeckillCli implements Callable<Integer> {

    public static void main(String[] args) {
        int code = commandLine().execute(args);
        if (code != 0 || !List.of("serve", "paysim").contains(args.length > 0 ? args[0] : "")) {
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

    @Command(name = "serve", description = "Run the application (roles from seckill.roles) against configured servers.")
    static final class Serve implements Callable<Integer> {

        @CommandLine.Unmatched
        String[] springArgs = new String[0];

        @Override
        public Integer call() {
            SpringApplication.run(SeckillApplication.class, springArgs);
            return 0;
        }
    }
}
